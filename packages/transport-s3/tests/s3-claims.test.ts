import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { HeadObjectCommand, ListMultipartUploadsCommand, type S3Client } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import { s3Transport } from "../src/index.js";
import { bytes, failureOf, observeRequests, patternBytes } from "./s3-fixtures.js";
import { s3Gate } from "@outpost/testkit/gates";
import { s3Client } from "./s3-client.js";

const { server, unavailable } = await s3Gate();
afterAll(() => server?.stop());
const BUCKET = "outpost-claims";
if (server) await server.createBucket(BUCKET);
const MIB = 1024 * 1024;
// Last-Modified has one-second precision, so a claim may look up to a second older than it is: the lease
// leaves the checks made before it ends several seconds, also on a loaded machine.
const LEASE_MS = 4_000;

/** Holds the writer on `client` right after its claim is stored (at the claim's check), until `resume()`. */
function stallAfterClaim(client: S3Client): { reached: Promise<void>; resume: () => void } {
  let armed = false;
  let done = false;
  let onReached!: () => void;
  let resume!: () => void;
  const reached = new Promise<void>((resolve) => {
    onReached = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    resume = resolve;
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (done) return result;
      if (context.commandName === "PutObjectCommand") armed = true;
      else if (armed && context.commandName === "HeadObjectCommand") {
        done = true;
        onReached();
        await gate;
      }
      return result;
    },
    { step: "finalizeRequest", name: "stallAfterClaim" },
  );
  return { reached, resume };
}

describe.skipIf(!server)(`s3Transport claims against moto_server${unavailable ? ` (unavailable: ${unavailable.reason})` : ""}`, () => {
  const host = (prefix: string, client = s3Client(server!)) => ({
    client,
    transport: s3Transport({
      client,
      bucket: BUCKET,
      prefix,
      multipartThresholdBytes: 6 * MIB,
      partBytes: 5 * MIB,
      claimLeaseMs: LEASE_MS,
    }),
  });

  for (const [label, size] of [
    ["single-PUT", 2 * MIB],
    ["multipart", 7 * MIB],
  ] as const) {
    it(`a ${label} writer stalled after claiming blocks the key until the lease ends, is taken over, and then gives up without overwriting`, async () => {
      const prefix = `stall-${randomUUID()}/`;
      const stalled = host(prefix);
      const other = host(prefix);
      const stall = stallAfterClaim(stalled.client);
      const stalledWrite = failureOf(stalled.transport.write("k.bin", patternBytes(size, 3), { ifRevision: null }));
      await stall.reached;

      // While the claim is fresh: no create-only writer gets in, and it is absent to readers and listings.
      const blocked = await failureOf(other.transport.write("k.bin", bytes("too early"), { ifRevision: null }));
      expect(blocked.code).toBe("conflict");
      const blockedLarge = await failureOf(other.transport.write("k.bin", patternBytes(size, 4), { ifRevision: null }));
      expect(blockedLarge.code).toBe("conflict");
      expect(await other.transport.read("k.bin")).toBeUndefined();
      const listed: string[] = [];
      for await (const entry of other.transport.list()) listed.push(entry.key);
      expect(listed).toEqual([]);

      // Past the lease the claim is presumed dead and taken over.
      await sleep(LEASE_MS + 1_100);
      const winner = patternBytes(size, 5);
      const taken = await other.transport.write("k.bin", winner, { ifRevision: null });

      stall.resume();
      const gaveUp = await stalledWrite;
      expect(gaveUp.code).toBe("conflict");
      expect(gaveUp.message).toMatch(new RegExp(`held its claim .* over half the ${LEASE_MS} ms claim lease`));
      const stored = await other.transport.read("k.bin");
      expect(stored?.revision).toBe(taken.revision);
      expect(Buffer.from(stored!.bytes).equals(Buffer.from(winner))).toBe(true);
      const uploads = await other.client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: prefix }));
      expect(uploads.Uploads ?? []).toEqual([]);
    }, 60_000);
  }

  it("a small create-only writer takes over an expired claim too", async () => {
    const prefix = `small-${randomUUID()}/`;
    const stalled = host(prefix);
    const other = host(prefix);
    const stall = stallAfterClaim(stalled.client);
    const stalledWrite = failureOf(stalled.transport.write("k.bin", patternBytes(2 * MIB), { ifRevision: null }));
    await stall.reached;
    await sleep(LEASE_MS + 1_100);
    const taken = await other.transport.write("k.bin", bytes("small winner"), { ifRevision: null });
    stall.resume();
    expect((await stalledWrite).code).toBe("conflict");
    expect((await other.transport.read("k.bin"))?.revision).toBe(taken.revision);
  }, 30_000);

  it("a claimed write that fails gives its claim back: the key is free at once, not after the lease", async () => {
    const prefix = `release-${randomUUID()}/`;
    const failing = host(prefix);
    // The body's PUT (If-Match on the claim, 2 MiB) fails every try, as a dropped connection would;
    // the claim's PUT and the release (small bodies) go through.
    failing.client.middlewareStack.add(
      (next, context) => async (args) => {
        const headers = (args.request as { headers?: Record<string, string> }).headers ?? {};
        if (context.commandName === "PutObjectCommand" && headers["if-match"] && Number(headers["content-length"]) > MIB) {
          throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
        }
        return next(args);
      },
      { step: "finalizeRequest", name: "dropBodyPut" },
    );
    const error = await failureOf(failing.transport.write("k.bin", patternBytes(2 * MIB), { ifRevision: null }));
    expect(error.code).toBe("transport");
    const other = s3Transport({ client: s3Client(server!), bucket: BUCKET, prefix }); // default 10-minute lease
    expect(await other.read("k.bin")).toBeUndefined();
    const written = await other.write("k.bin", patternBytes(2 * MIB, 9), { ifRevision: null });
    expect((await other.read("k.bin"))?.revision).toBe(written.revision);
  }, 30_000);

  it("20 races of two hosts creating the same 2 MiB key (claimed single PUT): exactly one wins each time", async () => {
    const prefix = `race-${randomUUID()}/`;
    const hosts = [host(prefix), host(prefix)];
    for (let round = 0; round < 20; round += 1) {
      const key = `r-${round}.bin`;
      const candidates = [patternBytes(2 * MIB, 2 * round + 1), patternBytes(2 * MIB, 2 * round + 2)];
      const outcomes = await Promise.allSettled(
        hosts.map(({ transport }, index) => transport.write(key, candidates[index]!, { ifRevision: null })),
      );
      const winners = outcomes.flatMap((outcome, index) => (outcome.status === "fulfilled" ? [index] : []));
      expect(winners, `round ${round}`).toHaveLength(1);
      for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "conflict" });
      const stored = await hosts[1]!.transport.read(key);
      expect(Buffer.from(stored!.bytes).equals(Buffer.from(candidates[winners[0]!]!)), `round ${round}`).toBe(true);
    }
  }, 120_000);

  it("a large create over a live object is refused before any part is uploaded", async () => {
    const prefix = `live-${randomUUID()}/`;
    const { client, transport } = host(prefix);
    await transport.write("k.bin", bytes("live"), { ifRevision: null });
    const seen = observeRequests(client);
    const error = await failureOf(transport.write("k.bin", patternBytes(7 * MIB), { ifRevision: null }));
    expect(error.code).toBe("conflict");
    expect(seen.map((request) => request.command)).toEqual(["HeadObjectCommand"]);
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${prefix}k.bin` }));
    expect(head.ContentLength).toBe(52 + 4);
  }, 30_000);

  it("claim options are validated", () => {
    const client = s3Client(server!);
    for (const bad of [{ claimLeaseMs: -1 }, { claimAboveBytes: Number.NaN }, { claimLeaseMs: 1.5 }]) {
      expect(() => s3Transport({ client, bucket: BUCKET, ...bad })).toThrow(expect.objectContaining({ code: "configuration" }));
    }
  });
});
