// Speed of the S3 transport against the same raw SDK calls in the same run, on a local moto_server:
// 1,000 writes and reads of 1 KB, and one 64 MiB object. Prints ratios (goal ≤ 1.2×); asserts nothing.
import { randomBytes } from "node:crypto";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { s3Transport } from "@outpost/transport-s3";
import { startMotoServer } from "@outpost/testkit/gates";
import { s3Client } from "../tests/s3-client.js";

const SMALL_COUNT = Number(process.env.BENCH_SMALL_COUNT ?? 1_000);
const SMALL = randomBytes(1024);
const LARGE = randomBytes(64 * 1024 * 1024);
const BUCKET = "outpost-bench";

async function timed(body: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await body();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function rawPut(client: S3Client, key: string, body: Uint8Array): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body, IfNoneMatch: "*", ChecksumAlgorithm: "SHA256" }));
}

async function rawGet(client: S3Client, key: string): Promise<Uint8Array> {
  const response = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, ChecksumMode: "ENABLED" }));
  return response.Body!.transformToByteArray();
}

function report(label: string, rawMs: number, transportMs: number): void {
  const ratio = transportMs / rawMs;
  console.log(
    `${label.padEnd(34)} raw ${rawMs.toFixed(0).padStart(6)} ms   transport ${transportMs.toFixed(0).padStart(6)} ms   ratio ${ratio.toFixed(2)}×${ratio <= 1.2 ? "" : "  (over the 1.2× goal)"}`,
  );
}

const server = await startMotoServer();
try {
  await server.createBucket(BUCKET);
  const client = s3Client(server);
  const transport = s3Transport({ client, bucket: BUCKET, prefix: "transport" });
  // Warm up connections and code paths on both sides.
  for (let index = 0; index < 20; index += 1) {
    await rawPut(client, `warm/raw-${index}`, SMALL);
    await transport.write(`warm/${index}`, SMALL, { ifRevision: null });
    await rawGet(client, `warm/raw-${index}`);
    await transport.read(`warm/${index}`);
  }

  // Each raw call is followed by the same transport call, so drift on the shared machine hits both alike.
  const totals = { rawWrite: 0, transportWrite: 0, rawRead: 0, transportRead: 0 };
  for (let index = 0; index < SMALL_COUNT; index += 1) {
    totals.rawWrite += await timed(() => rawPut(client, `raw/${index}`, SMALL));
    totals.transportWrite += await timed(async () => {
      await transport.write(`small/${index}`, SMALL, { ifRevision: null });
    });
  }
  for (let index = 0; index < SMALL_COUNT; index += 1) {
    totals.rawRead += await timed(async () => {
      await rawGet(client, `raw/${index}`);
    });
    totals.transportRead += await timed(async () => {
      await transport.read(`small/${index}`);
    });
  }
  console.log(`moto_server ${server.endpoint}, ${SMALL_COUNT} × 1 KB sequential, then one 64 MiB object`);
  report(`${SMALL_COUNT} writes of 1 KB`, totals.rawWrite, totals.transportWrite);
  report(`${SMALL_COUNT} reads of 1 KB`, totals.rawRead, totals.transportRead);

  // The raw floor for the large write is the SDK's own multipart upload with the same part size and
  // concurrency as the transport's defaults (8 MiB, 4 at once); a single raw PUT is printed for reference.
  const large = { rawWrite: 0, transportWrite: 0, rawRead: 0, transportRead: 0, rawSingle: 0 };
  for (const round of [0, 1]) {
    large.rawWrite += await timed(async () => {
      await new Upload({
        client,
        params: { Bucket: BUCKET, Key: `raw/large-${round}`, Body: LARGE, IfNoneMatch: "*", ChecksumAlgorithm: "SHA256" },
        partSize: 8 * 1024 * 1024,
        queueSize: 4,
      }).done();
    });
    large.transportWrite += await timed(async () => {
      await transport.write(`large-${round}`, LARGE, { ifRevision: null });
    });
    large.rawSingle += await timed(() => rawPut(client, `raw/single-${round}`, LARGE));
    large.rawRead += await timed(async () => {
      await rawGet(client, `raw/large-${round}`);
    });
    large.transportRead += await timed(async () => {
      await transport.read(`large-${round}`);
    });
  }
  report("64 MiB write (vs raw multipart)", large.rawWrite / 2, large.transportWrite / 2);
  report("64 MiB write (vs raw single PUT)", large.rawSingle / 2, large.transportWrite / 2);
  report("64 MiB read (multipart object)", large.rawRead / 2, large.transportRead / 2);
} finally {
  await server.stop();
}
