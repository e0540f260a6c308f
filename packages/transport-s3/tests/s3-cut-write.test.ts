import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { s3Gate } from "@outpost/testkit/gates";
import { s3Transport } from "../src/index.js";
import { TOMBSTONE_BYTES } from "../src/object-frame.js";
import { startCuttingProxy, type CuttingProxy } from "./cutting-proxy.js";
import { s3Client } from "./s3-client.js";
import { failureOf, patternBytes } from "./s3-fixtures.js";

const { server, unavailable } = await s3Gate();
const proxies: CuttingProxy[] = [];
afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await server?.stop();
});
const BUCKET = "outpost-cut-write";
if (server) await server.createBucket(BUCKET);
const MIB = 1024 * 1024;

/** A client whose every request goes through a proxy the test controls; one attempt per request. */
async function proxiedClient(): Promise<{ client: S3Client; proxy: CuttingProxy }> {
  const proxy = await startCuttingProxy(server!.clientSettings().endpoint);
  proxies.push(proxy);
  const client = new S3Client({ ...server!.clientSettings(), endpoint: proxy.endpoint, maxAttempts: 1 });
  server!.onStop(() => client.destroy());
  return { client, proxy };
}

/** Polls `condition` until it holds, at most `tries` times `everyMs`. */
async function eventually(condition: () => Promise<boolean>, tries = 100, everyMs = 200): Promise<boolean> {
  for (let index = 0; index < tries; index += 1) {
    if (await condition()) return true;
    await sleep(everyMs);
  }
  return false;
}

describe.skipIf(!server)(`S3 claims when the connection fails${unavailable ? ` (unavailable: ${unavailable.reason})` : ""}`, () => {
  it("a write cut mid-body, the link then down for a while: its claim is given back once the link is up, not after the lease", async () => {
    const { client, proxy } = await proxiedClient();
    // A 10-minute lease: a key free within this test was released, not expired.
    const writer = s3Transport({ client, bucket: BUCKET, claimAboveBytes: 1024, claimLeaseMs: 600_000 });
    const key = `cut-${Date.now()}.bin`;
    const cut = proxy.cutAfter(MIB);
    const failed = failureOf(writer.write(key, patternBytes(3 * MIB), { ifRevision: null }));
    await cut;
    proxy.setDown(true);
    expect(await failed).toMatchObject({ code: "transport" });
    proxy.setDown(false);
    const direct = s3Client(server!);
    const released = await eventually(async () => {
      const head = await direct.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).catch(() => undefined);
      return head?.ContentLength === TOMBSTONE_BYTES;
    });
    expect(released).toBe(true);
    const other = s3Transport({ client: direct, bucket: BUCKET, claimAboveBytes: 1024, claimLeaseMs: 600_000 });
    await other.write(key, patternBytes(3 * MIB), { ifRevision: null });
    expect((await other.read(key))?.bytes.byteLength).toBe(3 * MIB);
  });

  it("a slow write renews its short claim: another writer finds the key claimed past the lease, and the write lands", async () => {
    const { client, proxy } = await proxiedClient();
    const LEASE_MS = 3_000;
    const writer = s3Transport({ client, bucket: BUCKET, claimAboveBytes: 1024, claimLeaseMs: LEASE_MS });
    const other = s3Transport({ client: s3Client(server!), bucket: BUCKET, claimAboveBytes: 1024, claimLeaseMs: LEASE_MS });
    const key = `slow-${Date.now()}.bin`;
    const body = patternBytes(2 * MIB);
    proxy.throttle(128 * 1024);
    const slow = writer.write(key, body, { ifRevision: null });
    // Past two leases the claim would have expired without its renewals; it is still held.
    await sleep(2 * LEASE_MS + 1_500);
    await expect(other.write(key, patternBytes(2 * MIB), { ifRevision: null })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/claimed by another writer/),
    });
    proxy.throttle(undefined);
    await slow;
    expect(Buffer.from((await other.read(key))!.bytes).equals(Buffer.from(body))).toBe(true);
  });
});
