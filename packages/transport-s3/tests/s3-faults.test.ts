import { randomUUID } from "node:crypto";
import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import { s3Transport } from "../src/index.js";
import { bytes, failureOf, patternBytes } from "./s3-fixtures.js";
import { TOMBSTONE_BYTES } from "../src/object-frame.js";
import { s3Gate } from "@outpost/testkit/gates";
import { s3Client } from "./s3-client.js";

const { server, unavailable } = await s3Gate();
afterAll(() => server?.stop());
const BUCKET = "outpost-faults";
if (server) await server.createBucket(BUCKET);
const MIB = 1024 * 1024;
const LEASE_MS = 60_000;

/** Makes the client's matching requests fail like a dropped connection, `times` times (Infinity: always). */
function dropRequests(
  client: S3Client,
  matches: (command: string, bodyBytes: number) => boolean,
  times: number,
): { dropped: () => number } {
  let dropped = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const body = (args.request as { body?: { byteLength?: number; length?: number } }).body;
      const size = body?.byteLength ?? body?.length ?? 0;
      if (dropped < times && matches(String(context.commandName), size)) {
        dropped += 1;
        throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
      }
      return next(args);
    },
    // Before the SDK's retry loop (finalizeRequest), so the drop is not retried away by the SDK itself.
    { step: "build", name: `drop-${randomUUID()}` },
  );
  return { dropped: () => dropped };
}

describe.skipIf(!server)(`s3Transport faults against moto_server${unavailable ? ` (unavailable: ${unavailable.reason})` : ""}`, () => {
  it("a missing bucket is a transport error everywhere: never absent, never a lost race", async () => {
    const transport = s3Transport({ client: s3Client(server!), bucket: `missing-${randomUUID().slice(0, 8)}` });
    for (const action of [
      () => transport.read("k.json"),
      () => transport.write("k.json", bytes("x"), { ifRevision: null }),
      () => transport.write("k.json", bytes("x"), { ifRevision: "0123" }),
      () => transport.remove("k.json", { ifRevision: "0123" }),
      async () => {
        for await (const entry of transport.list("")) void entry;
      },
    ]) {
      const error = await failureOf(
        (action() as Promise<unknown>)
          .then((value) => {
            if (value === undefined) throw Object.assign(new Error("read as absent"), { name: "Absent" });
            return value;
          })
          .catch((caught: unknown) => {
            if ((caught as Error).name === "Absent") throw new Error("a missing bucket read as an absent key");
            throw caught;
          }),
      );
      expect(error.code).toBe("transport");
      expect(error.message).toContain("does not exist");
    }
  });

  it("a claim whose first release fails is released on a retry: the key is free at once", async () => {
    const client = s3Client(server!);
    const transport = s3Transport({
      client,
      bucket: BUCKET,
      prefix: `retry-${randomUUID()}`,
      claimAboveBytes: MIB,
      claimLeaseMs: LEASE_MS,
    });
    // The claimed body's PUT fails, then the first attempt to give the claim back fails too.
    dropRequests(client, (command, size) => command === "PutObjectCommand" && size > MIB, 1);
    const releases = dropRequests(client, (command, size) => command === "PutObjectCommand" && size === TOMBSTONE_BYTES, 1);
    expect((await failureOf(transport.write("big.bin", patternBytes(2 * MIB), { ifRevision: null }))).code).toBe("transport");
    expect(releases.dropped()).toBe(1);
    expect((await transport.write("big.bin", patternBytes(2 * MIB, 2), { ifRevision: null })).size).toBe(2 * MIB);
  });

  it("a claim that cannot be released makes other writers' conflict say when the key frees", async () => {
    const prefix = `stuck-${randomUUID()}`;
    const client = s3Client(server!);
    const writer = s3Transport({ client, bucket: BUCKET, prefix, claimAboveBytes: MIB, claimLeaseMs: LEASE_MS });
    dropRequests(client, (command, size) => command === "PutObjectCommand" && size > MIB, 1);
    dropRequests(client, (command, size) => command === "PutObjectCommand" && size === TOMBSTONE_BYTES, Number.POSITIVE_INFINITY);
    const before = Date.now();
    expect((await failureOf(writer.write("big.bin", patternBytes(2 * MIB), { ifRevision: null }))).code).toBe("transport");
    const other = s3Transport({ client: s3Client(server!), bucket: BUCKET, prefix, claimAboveBytes: MIB, claimLeaseMs: LEASE_MS });
    for (const size of [100, 2 * MIB]) {
      const conflict = await failureOf(other.write("big.bin", patternBytes(size), { ifRevision: null }));
      expect(conflict.code).toBe("conflict");
      expect(conflict.message).toContain("frees at");
      const freesAt = Date.parse((conflict.details as { freesAt: string }).freesAt);
      // Last-Modified has one-second precision.
      expect(freesAt).toBeGreaterThan(before + LEASE_MS - 2_000);
      expect(freesAt).toBeLessThan(Date.now() + LEASE_MS + 2_000);
    }
  }, 30_000);
});
