import { randomUUID } from "node:crypto";
import { GetObjectCommand, HeadObjectCommand, ListMultipartUploadsCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import { s3Transport } from "../src/index.js";
import { bytes, failureOf, observeRequests, patternBytes, sha256Base64 } from "./s3-fixtures.js";
import { MOTO_CREDENTIALS, s3Gate } from "@outpost/testkit/gates";
import { s3Client } from "./s3-client.js";

const { server, unavailable } = await s3Gate();
afterAll(() => server?.stop());
const BUCKET = "outpost-integrity";
if (server) await server.createBucket(BUCKET);
const MIB = 1024 * 1024;

describe.skipIf(!server)(`s3Transport integrity against moto_server${unavailable ? ` (unavailable: ${unavailable.reason})` : ""}`, () => {
  const fresh = (options: { multipartThresholdBytes?: number; client?: S3Client } = {}) => {
    const prefix = `it-${randomUUID()}/`;
    const client = options.client ?? s3Client(server!);
    return {
      client,
      prefix,
      transport: s3Transport({
        client,
        bucket: BUCKET,
        prefix,
        multipartThresholdBytes: options.multipartThresholdBytes,
        partBytes: 5 * MIB,
      }),
    };
  };

  it("50 writers, each with its own S3 client (as on 50 hosts), race create-only on one key: exactly one wins", async () => {
    const prefix = `hosts-${randomUUID()}/`;
    const transports = Array.from({ length: 50 }, () => s3Transport({ client: s3Client(server!), bucket: BUCKET, prefix }));
    const outcomes = await Promise.allSettled(
      transports.map((transport, index) => transport.write("shared.json", bytes(`host ${index}`), { ifRevision: null })),
    );
    const winners = outcomes.flatMap((outcome, index) => (outcome.status === "fulfilled" ? [index] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "conflict" });
    const stored = await transports[0]!.read("shared.json");
    expect(new TextDecoder().decode(stored!.bytes)).toBe(`host ${winners[0]}`);
  }, 60_000);

  it("sends a SHA-256 with every write, which S3 stores for the whole object", async () => {
    const { client, prefix, transport } = fresh();
    const seen = observeRequests(client);
    await transport.write("checked.bin", patternBytes(10_000), { ifRevision: null });
    const put = seen.find((request) => request.command === "PutObjectCommand");
    expect(put?.headers["x-amz-checksum-sha256"]).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const raw = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${prefix}checked.bin` }));
    const body = await raw.Body!.transformToByteArray();
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${prefix}checked.bin`, ChecksumMode: "ENABLED" }));
    expect(head.ChecksumSHA256).toBe(sha256Base64(body));
    expect(put?.headers["x-amz-checksum-sha256"]).toBe(sha256Base64(body));
  });

  it("bytes changed in flight after the checksum was computed are caught on read, never returned", async () => {
    const { client, prefix, transport } = fresh();
    // Flip one byte of the frame's nonce after the transport computed the body's SHA-256, as a faulty
    // network would. AWS S3 refuses such a PUT (BadDigest); moto stores it along with the checksum we
    // sent without verifying, which lets this test reach the read-side verification for real.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const request = args.request as { body?: unknown };
        if (context.commandName === "PutObjectCommand" && Buffer.isBuffer(request.body)) {
          const body = Buffer.from(request.body);
          body[5] = (body[5] ?? 0) ^ 0xff;
          request.body = body;
        }
        return next(args);
      },
      { step: "finalizeRequest", name: "corruptInFlight" },
    );
    await transport.write("flipped.bin", bytes("payload"), { ifRevision: null }).catch((error: unknown) => {
      expect(error).toMatchObject({ code: "transport" });
    });
    const error = await failureOf(transport.read("flipped.bin"));
    expect(error.code).toBe("transport");
    expect(error.message).toMatch(/flipped\.bin is corrupt: the SDK found its bytes differ from the SHA-256 S3 stored/);
    // "WHEN_REQUIRED" (advised for some stores) still validates, because the transport asks for the checksum.
    const unvalidated = new S3Client({
      endpoint: server!.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: MOTO_CREDENTIALS,
      responseChecksumValidation: "WHEN_REQUIRED",
      requestChecksumCalculation: "WHEN_REQUIRED",
    });
    const own = await failureOf(s3Transport({ client: unvalidated, bucket: BUCKET, prefix }).read("flipped.bin"));
    expect(own.message).toMatch(/flipped\.bin is corrupt: the SDK found its bytes differ from the SHA-256 S3 stored/);
    unvalidated.destroy();
  });

  it("a stored object whose bytes do not match its recorded SHA-256 is a clear error, never returned", async () => {
    const { client, prefix, transport } = fresh();
    const entry = await transport.write("doc.txt", bytes("the original payload"), { ifRevision: null });
    expect(entry.size).toBe(20);
    // Rewrite the object through the raw SDK with the same frame but other payload bytes: S3's own
    // checksum of the new body is valid, only the SHA-256 the transport recorded no longer matches.
    const raw = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${prefix}doc.txt` }));
    const body = Buffer.from(await raw.Body!.transformToByteArray());
    body.write("THE", body.length - 20);
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}doc.txt`, Body: body, ChecksumAlgorithm: "SHA256" }));
    const error = await failureOf(transport.read("doc.txt"));
    expect(error.code).toBe("transport");
    expect(error.message).toMatch(/doc\.txt is corrupt: its bytes do not match the SHA-256 recorded when it was written/);
    expect(error.message).toMatch(/Restore it/);
    await expect(transport.read("doc.txt", { maxBytes: 1_000 })).rejects.toMatchObject({ code: "transport" });
  });

  it("an object written by something else than the transport is refused as corrupt", async () => {
    const { client, prefix, transport } = fresh();
    await client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: `${prefix}foreign.txt`,
        Body: "plain bytes, no frame, long enough to look like one ....",
      }),
    );
    const error = await failureOf(transport.read("foreign.txt"));
    expect(error).toMatchObject({ code: "transport" });
    expect(error.message).toMatch(/Outpost frame/);
  });

  it("a large create-only object goes through multipart, reads back intact, and keeps create-only semantics", async () => {
    const { client, prefix, transport } = fresh({ multipartThresholdBytes: 6 * MIB });
    const seen = observeRequests(client);
    const large = patternBytes(17 * MIB, 7);
    const entry = await transport.write("large.bin", large, { ifRevision: null });
    expect(seen.filter((request) => request.command === "UploadPartCommand")).toHaveLength(4);
    // The key is won by a small claim (If-None-Match: *), then the upload completes with If-Match on that claim.
    const commands = seen.map((request) => request.command);
    const claim = seen.find((request) => request.command === "PutObjectCommand");
    expect(claim?.headers["if-none-match"]).toBe("*");
    expect(Number(claim?.headers["content-length"])).toBeLessThan(64);
    expect(commands.indexOf("PutObjectCommand")).toBeGreaterThan(commands.lastIndexOf("UploadPartCommand"));
    expect(seen.find((request) => request.command === "CompleteMultipartUploadCommand")?.headers["if-match"]).toMatch(/^"[0-9a-f]{32}"$/);
    const stored = await transport.read("large.bin");
    expect(stored?.revision).toBe(entry.revision);
    expect(Buffer.from(stored!.bytes).equals(Buffer.from(large))).toBe(true);

    const conflict = await failureOf(transport.write("large.bin", patternBytes(7 * MIB, 9), { ifRevision: null }));
    expect(conflict.code).toBe("conflict");
    expect((await transport.read("large.bin"))?.revision).toBe(entry.revision);
    const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: prefix }));
    expect(uploads.Uploads ?? []).toEqual([]);

    const replaced = await transport.write("large.bin", patternBytes(7 * MIB, 11), { ifRevision: entry.revision });
    expect((await transport.read("large.bin"))?.revision).toBe(replaced.revision);
  }, 120_000);

  it("a large create-only write over a removed key replaces its tombstone, and a second one conflicts (20 races, two hosts)", async () => {
    const prefix = `re-${randomUUID()}/`;
    // Two clients, as on two hosts; 7 MiB over a 6 MiB threshold goes through multipart.
    const [one, two] = [s3Client(server!), s3Client(server!)].map((client) =>
      s3Transport({ client, bucket: BUCKET, prefix, multipartThresholdBytes: 6 * MIB, partBytes: 5 * MIB }),
    );
    for (let round = 0; round < 20; round += 1) {
      const key = `re-${round}.bin`;
      const first = await one!.write(key, bytes("small"), { ifRevision: null });
      await one!.remove(key, { ifRevision: first.revision });
      const candidates = [patternBytes(7 * MIB, 2 * round + 13), patternBytes(7 * MIB, 2 * round + 14)];
      const outcomes = await Promise.allSettled(
        [one!, two!].map((transport, index) => transport.write(key, candidates[index]!, { ifRevision: null })),
      );
      const winners = outcomes.flatMap((outcome, index) => (outcome.status === "fulfilled" ? [index] : []));
      expect(winners, `round ${round}`).toHaveLength(1);
      for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "conflict" });
      const stored = await two!.read(key);
      expect(Buffer.from(stored!.bytes).equals(Buffer.from(candidates[winners[0]!]!)), `round ${round}`).toBe(true);
    }
  }, 240_000);

  it("read with maxBytes fetches a bounded range, never the whole object", async () => {
    const { client, transport } = fresh();
    await transport.write("big.bin", patternBytes(3 * MIB), { ifRevision: null });
    const seen = observeRequests(client);
    const error = await failureOf(transport.read("big.bin", { maxBytes: 1_000 }));
    expect(error.code).toBe("limit");
    const get = seen.find((request) => request.command === "GetObjectCommand");
    expect(get?.headers.range).toMatch(/^bytes=0-\d+$/);
    expect(get?.responseBytes).toBeLessThanOrEqual(1_000 + 53);
  });

  it("an abort in the middle of a multipart write leaves no object and no pending upload", async () => {
    const controller = new AbortController();
    const { client, prefix, transport } = fresh({ multipartThresholdBytes: 6 * MIB });
    let parts = 0;
    observeRequests(client, (command) => {
      if (command === "UploadPartCommand" && ++parts === 2) controller.abort(new Error("caller gave up"));
    });
    const error = await failureOf(transport.write("aborted.bin", patternBytes(24 * MIB), { ifRevision: null, signal: controller.signal }));
    expect(error.code).toBe("aborted");
    expect(await transport.read("aborted.bin")).toBeUndefined();
    const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: prefix }));
    expect(uploads.Uploads ?? []).toEqual([]);
  }, 60_000);

  it("removed keys leave only tombstones, which read, list and create-only writes treat as absent", async () => {
    const { client, prefix, transport } = fresh();
    const entry = await transport.write("t.txt", bytes("x"), { ifRevision: null });
    await transport.remove("t.txt", { ifRevision: entry.revision });
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${prefix}t.txt` }));
    expect(head.ContentLength).toBe(20);
    expect(await transport.read("t.txt")).toBeUndefined();
    const listed: string[] = [];
    for await (const listedEntry of transport.list()) listed.push(listedEntry.key);
    expect(listed).toEqual([]);
    await expect(transport.remove("t.txt", { ifRevision: entry.revision })).rejects.toMatchObject({ code: "conflict" });
  });
});
