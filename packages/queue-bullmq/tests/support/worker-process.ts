// One fleet worker as its own process, as on another machine: its own cache, the shared Redis and S3.
// Prints every worker event as a JSON line on stdout. Configured by QUEUE_TEST_* variables.
import { S3Client } from "@aws-sdk/client-s3";
import { MOTO_CREDENTIALS } from "@outpost/testkit/gates";
import { descriptor as dockerDescriptor } from "@outpost/provider-docker";
import { descriptor as localDescriptor } from "@outpost/provider-local";
import { fsTransport } from "@outpost/transport-fs";
import { s3Transport } from "@outpost/transport-s3";
import { openDispatchQueue, runDispatchWorker } from "@outpost/queue-bullmq";
import { shellAgentDescriptor } from "./shell-agent.js";

const variable = (name: string): string => {
  const value = process.env[`QUEUE_TEST_${name}`];
  if (value === undefined) throw new Error(`QUEUE_TEST_${name} is not set`);
  return value;
};
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

const queue = openDispatchQueue({ url: variable("REDIS_URL"), name: variable("QUEUE") });
// Results on S3 (moto), or in a folder every worker process of the test shares.
const resultsDirectory = process.env.QUEUE_TEST_RESULTS_DIR;
const client =
  resultsDirectory === undefined
    ? new S3Client({
        endpoint: variable("S3_ENDPOINT"),
        region: "us-east-1",
        forcePathStyle: true,
        credentials: MOTO_CREDENTIALS,
        maxAttempts: 5,
      })
    : undefined;
const results = client ? s3Transport({ client, bucket: variable("BUCKET") }) : fsTransport({ directory: resultsDirectory! });
const worker = await runDispatchWorker({
  queue,
  name: variable("NAME"),
  plugins: [shellAgentDescriptor, localDescriptor, dockerDescriptor],
  transports: { results },
  cacheDirectory: variable("CACHE"),
  concurrency: Number(process.env.QUEUE_TEST_CONCURRENCY ?? "2"),
  lockDurationMs: Number(process.env.QUEUE_TEST_LOCK_MS ?? "6000"),
  stalledIntervalMs: Number(process.env.QUEUE_TEST_STALLED_MS ?? "3000"),
  maxStalledCount: 5,
  onEvent: (event) => print({ worker: variable("NAME"), ...event }),
});
print({ worker: worker.name, type: "ready" });
process.once("SIGTERM", () => {
  void worker.close().then(async () => {
    await queue.close();
    client?.destroy();
    process.exit(0);
  });
});
