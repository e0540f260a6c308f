import { randomUUID } from "node:crypto";
import { inspect } from "node:util";
import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import type { OutpostError } from "@outpost/core";
import { s3Transport } from "../src/index.js";
import { bytes, failureOf } from "./s3-fixtures.js";
import { MOTO_CREDENTIALS, type MotoServer, s3Gate, startMotoServer } from "@outpost/testkit/gates";
import { s3Client } from "./s3-client.js";

const { server, unavailable } = await s3Gate();
const BUCKET = "outpost-errors";
if (server) await server.createBucket(BUCKET);
// A second server that checks credentials: moto does so once INITIAL_NO_AUTH_ACTION_COUNT actions are used up.
const strict: MotoServer | undefined = server ? await startMotoServer({ INITIAL_NO_AUTH_ACTION_COUNT: "0" }) : undefined;
afterAll(async () => {
  await strict?.stop();
  await server?.stop();
});

/** Everything an error could leak through: message, details, and the whole cause chain as printed. */
function everythingIn(error: OutpostError): string {
  return [error.message, JSON.stringify(error.details), inspect(error, { depth: 8, showHidden: true })].join("\n");
}

function expectNoCredentials(error: OutpostError): void {
  const text = everythingIn(error);
  expect(text).not.toContain(MOTO_CREDENTIALS.secretAccessKey);
  expect(text).not.toContain(MOTO_CREDENTIALS.accessKeyId);
}

describe.skipIf(!server)(`s3Transport errors${unavailable ? ` (unavailable: ${unavailable.reason})` : ""}`, () => {
  it("an unreachable endpoint is code transport saying so, naming the endpoint", async () => {
    const client = new S3Client({
      endpoint: "http://127.0.0.1:9",
      region: "us-east-1",
      forcePathStyle: true,
      credentials: MOTO_CREDENTIALS,
      maxAttempts: 1,
    });
    const transport = s3Transport({ client, bucket: BUCKET });
    for (const action of [
      transport.read("a.txt"),
      transport.write("a.txt", bytes("x"), { ifRevision: null }),
      transport.remove("a.txt", { ifRevision: "abc" }),
    ]) {
      const error = await failureOf(action);
      expect(error.code).toBe("transport");
      expect(error.message).toMatch(/the S3 endpoint http:\/\/127\.0\.0\.1:9 is unreachable \(ECONNREFUSED\)\. Check the endpoint/);
      expectNoCredentials(error);
    }
    client.destroy();
  });

  it("refused credentials are code transport saying so, and the credentials appear nowhere in the error", async () => {
    const transport = s3Transport({ client: s3Client(strict!), bucket: BUCKET });
    const failures = [
      await failureOf(transport.read("a.txt")),
      await failureOf(transport.write("a.txt", bytes("x"), { ifRevision: null })),
      await failureOf(
        (async () => {
          for await (const entry of transport.list()) void entry;
        })(),
      ),
    ];
    for (const error of failures) {
      expect(error.code).toBe("transport");
      expect(error.message).toMatch(/refused the credentials \(InvalidAccessKeyId\)\. Check the access key and secret/);
      expectNoCredentials(error);
    }
  });

  it("a lost race carries no credentials either", async () => {
    const transport = s3Transport({ client: s3Client(server!), bucket: BUCKET, prefix: randomUUID() });
    await transport.write("a.txt", bytes("x"), { ifRevision: null });
    const error = await failureOf(transport.write("a.txt", bytes("y"), { ifRevision: null }));
    expect(error.code).toBe("conflict");
    expectNoCredentials(error);
  });

  it("a missing bucket is code transport naming the bucket", async () => {
    const transport = s3Transport({ client: s3Client(server!), bucket: "no-such-bucket-here" });
    const error = await failureOf(transport.write("a.txt", bytes("x"), { ifRevision: null }));
    expect(error.code).toBe("transport");
    expect(error.message).toMatch(/bucket no-such-bucket-here does not exist/);
  });

  it("invalid configuration is refused up front with code configuration", () => {
    const client = s3Client(server!);
    expect(() => s3Transport({ client, bucket: "" })).toThrow(expect.objectContaining({ code: "configuration" }));
    expect(() => s3Transport({ client, bucket: BUCKET, prefix: "../up" })).toThrow(expect.objectContaining({ code: "configuration" }));
    expect(() => s3Transport({ client, bucket: BUCKET, partBytes: 1024 })).toThrow(expect.objectContaining({ code: "configuration" }));
    expect(() => s3Transport({ client: {} as S3Client, bucket: BUCKET })).toThrow(expect.objectContaining({ code: "configuration" }));
  });
});
