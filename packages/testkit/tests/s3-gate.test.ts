import { afterEach, describe, expect, it } from "vitest";
import { s3Gate } from "../src/gates/index.js";

const saved = { MOTO_SERVER: process.env.MOTO_SERVER, OUTPOST_REQUIRE_S3: process.env.OUTPOST_REQUIRE_S3 };

function restore(name: keyof typeof saved): void {
  if (saved[name] === undefined) delete process.env[name];
  else process.env[name] = saved[name];
}

describe("the S3 gate", () => {
  afterEach(() => {
    restore("MOTO_SERVER");
    restore("OUTPOST_REQUIRE_S3");
  });

  it("without a startable moto_server, returns a named reason instead of a server", async () => {
    process.env.MOTO_SERVER = "/nonexistent/moto_server";
    delete process.env.OUTPOST_REQUIRE_S3;
    const gated = await s3Gate();
    expect(gated.server).toBeUndefined();
    expect(gated.unavailable?.reason).toMatch(/^no S3 server: moto_server could not start/);
  });

  it("with OUTPOST_REQUIRE_S3=1, an unstartable moto_server fails instead of skipping", async () => {
    process.env.MOTO_SERVER = "/nonexistent/moto_server";
    process.env.OUTPOST_REQUIRE_S3 = "1";
    await expect(s3Gate()).rejects.toThrow(/OUTPOST_REQUIRE_S3=1/);
  });
});
