import { ListMultipartUploadsCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { s3Transport } from "../src/index.js";
import { failureOf, observeRequests, patternBytes } from "./s3-fixtures.js";
import { type MotoServer, s3Gate, startMotoServer } from "@outpost/testkit/gates";
import { s3Client } from "./s3-client.js";

const MIB = 1024 * 1024;
const probe = await s3Gate();
await probe.server?.stop();

/** Each test owns its server, since it kills or freezes it. */
async function withServer(body: (server: MotoServer) => Promise<void>): Promise<void> {
  const server = await startMotoServer();
  try {
    await server.createBucket("outpost-stop");
    await body(server);
  } finally {
    await server.stop();
  }
}

describe.skipIf(!probe.server)(
  `s3Transport when the server stops mid-write${probe.unavailable ? ` (unavailable: ${probe.unavailable.reason})` : ""}`,
  () => {
    it(
      "a server killed during a multipart write: a clear unreachable error",
      () =>
        withServer(async (server) => {
          const client = s3Client(server);
          const transport = s3Transport({ client, bucket: "outpost-stop", multipartThresholdBytes: 6 * MIB, partBytes: 5 * MIB });
          let parts = 0;
          observeRequests(client, (command) => {
            if (command === "UploadPartCommand" && ++parts === 2) server.process.kill("SIGKILL");
          });
          const error = await failureOf(transport.write("large.bin", patternBytes(30 * MIB), { ifRevision: null }));
          expect(error.code).toBe("transport");
          expect(error.message).toMatch(new RegExp(`the S3 endpoint ${server.endpoint.replace(/\./g, "\\.")} is unreachable`));
        }),
      60_000,
    );

    it(
      "a server frozen during a multipart write: a clear error, and once it runs again no object is visible",
      () =>
        withServer(async (server) => {
          const client = s3Client(server, { requestTimeout: 1_500 });
          const transport = s3Transport({
            client,
            bucket: "outpost-stop",
            multipartThresholdBytes: 6 * MIB,
            partBytes: 5 * MIB,
            partConcurrency: 2,
          });
          let parts = 0;
          observeRequests(client, (command) => {
            if (command === "UploadPartCommand" && ++parts === 2) server.process.kill("SIGSTOP");
          });
          const large = patternBytes(30 * MIB, 3);
          const error = await failureOf(transport.write("large.bin", large, { ifRevision: null }));
          expect(error.code).toBe("transport");
          expect(error.message).toMatch(/did not answer in time|is unreachable/);

          server.process.kill("SIGCONT");
          // The parts already sent are processed now, but the upload was never completed: nothing to see.
          const reader = s3Transport({ client: s3Client(server), bucket: "outpost-stop" });
          expect(await reader.read("large.bin")).toBeUndefined();
          const listed: string[] = [];
          for await (const entry of reader.list()) listed.push(entry.key);
          expect(listed).toEqual([]);
          // A retry of the same create-only write succeeds and reads back whole.
          const entry = await reader.write("large.bin", large, { ifRevision: null });
          const stored = await reader.read("large.bin");
          expect(stored?.revision).toBe(entry.revision);
          expect(Buffer.from(stored!.bytes).equals(Buffer.from(large))).toBe(true);
          // The frozen server could not take the abort: the parts linger until a lifecycle rule removes them.
          const uploads = await s3Client(server).send(new ListMultipartUploadsCommand({ Bucket: "outpost-stop" }));
          expect((uploads.Uploads ?? []).length).toBeLessThanOrEqual(1);
        }),
      90_000,
    );

    it(
      "a server frozen during a single PUT: after it resumes the object is absent or whole, never partial",
      () =>
        withServer(async (server) => {
          const client = s3Client(server, { requestTimeout: 1_000 });
          const transport = s3Transport({ client, bucket: "outpost-stop" });
          observeRequests(client, (command) => {
            if (command === "PutObjectCommand") server.process.kill("SIGSTOP");
          });
          const payload = patternBytes(4 * MIB, 5);
          const error = await failureOf(transport.write("single.bin", payload, { ifRevision: null }));
          expect(error.code).toBe("transport");
          server.process.kill("SIGCONT");
          const stored = await s3Transport({ client: s3Client(server), bucket: "outpost-stop" }).read("single.bin");
          if (stored) expect(Buffer.from(stored.bytes).equals(Buffer.from(payload))).toBe(true);
          else expect(stored).toBeUndefined();
        }),
      60_000,
    );
  },
);
