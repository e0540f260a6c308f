import { afterEach, describe, expect, it } from "vitest";
import { dockerGate } from "../src/gates/index.js";

const saved = process.env.OUTPOST_REQUIRE_DOCKER;

describe("the Docker gate", () => {
  afterEach(() => {
    if (saved === undefined) delete process.env.OUTPOST_REQUIRE_DOCKER;
    else process.env.OUTPOST_REQUIRE_DOCKER = saved;
  });

  it("without an engine on the socket, returns a named reason", async () => {
    delete process.env.OUTPOST_REQUIRE_DOCKER;
    const gated = await dockerGate({ socketPath: "/nonexistent/docker.sock" });
    expect(gated.unavailable?.reason).toBe("no Docker engine reachable on /nonexistent/docker.sock");
  });

  it("with OUTPOST_REQUIRE_DOCKER=1, an unreachable engine throws instead of skipping", async () => {
    process.env.OUTPOST_REQUIRE_DOCKER = "1";
    await expect(dockerGate({ socketPath: "/nonexistent/docker.sock" })).rejects.toThrow(/OUTPOST_REQUIRE_DOCKER=1/);
  });

  it("names a missing image and the hint to build it, when the engine answers", async () => {
    delete process.env.OUTPOST_REQUIRE_DOCKER;
    const engine = await dockerGate();
    if (engine.unavailable) return expect(engine.unavailable.reason).toMatch(/^no Docker engine reachable/);
    const gated = await dockerGate({ images: ["outpost-no-such-image:never"], buildHint: "build it" });
    expect(gated.unavailable?.reason).toBe("image outpost-no-such-image:never missing: build it");
  });
});
