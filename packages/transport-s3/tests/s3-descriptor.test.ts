import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeGated, MOTO_CREDENTIALS, s3Gate } from "@outpost/testkit/gates";
import { descriptor, s3Transport } from "../src/index.js";
import { s3Client } from "./s3-client.js";

const gated = await s3Gate();
afterAll(() => gated.server?.stop());
const BUCKET = "outpost-descriptor";
if (gated.server) await gated.server.createBucket(BUCKET);

const VARIABLES = ["OUTPOST_S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"] as const;
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));

describe("the s3 transport descriptor: refusals", () => {
  it("refuses a location that names no bucket, with the form to write", () => {
    for (const location of ["", "/", "UPPER/x", "a"])
      expect(() => descriptor.createTransport(location)).toThrow(expect.objectContaining({ code: "configuration" }) as Error);
  });
});

describeGated("the s3 transport descriptor opens s3://bucket/prefix from the environment", gated, () => {
  beforeEach(() => {
    Object.assign(process.env, {
      OUTPOST_S3_ENDPOINT: gated.server!.endpoint,
      AWS_ACCESS_KEY_ID: MOTO_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: MOTO_CREDENTIALS.secretAccessKey,
      AWS_REGION: "us-east-1",
    });
  });
  afterEach(() => {
    for (const name of VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it("writes under the prefix, where a transport built by hand reads it", async () => {
    const opened = await descriptor.createTransport(`${BUCKET}/fleet/results`);
    expect(opened.name).toBe("s3");
    const written = await opened.write("job-1/result.json", new TextEncoder().encode('{"ok":true}'), { ifRevision: null });
    const byHand = s3Transport({ client: s3Client(gated.server!), bucket: BUCKET, prefix: "fleet/results/" });
    const read = await byHand.read("job-1/result.json");
    expect(read?.revision).toBe(written.revision);
    expect(new TextDecoder().decode(read!.bytes)).toBe('{"ok":true}');
    const root = s3Transport({ client: s3Client(gated.server!), bucket: BUCKET });
    expect(await root.read("job-1/result.json")).toBeUndefined();
  });
});
