import { createServer } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import Docker from "dockerode";
import { isOutpostError } from "@outpost/core";
import { dockerProvider, reap, type DockerProviderConfig } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { contextFor, hostWorkspace } from "./docker-fixtures.js";

function expectCode(error: unknown, code: "configuration" | "provider", pattern: RegExp): void {
  expect(isOutpostError(error, code), `expected an OutpostError ${code}, got ${String(error)}`).toBe(true);
  expect((error as Error).message).toMatch(pattern);
}

/** A unix socket path where nothing listens any more (the server bound it, then closed). */
async function closedSocket(directory: string): Promise<string> {
  const path = join(directory, "closed.sock");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return path;
}

it("an unreachable engine (DOCKER_HOST at a closed socket) fails acquire and reap with code provider", async () => {
  const scratch = await mkdtemp(join(tmpdir(), "outpost-docker-closed-"));
  const saved = process.env.DOCKER_HOST;
  try {
    process.env.DOCKER_HOST = `unix://${await closedSocket(scratch)}`;
    const provider = dockerProvider({ image: "outpost-test:latest", mode: "isolated" });
    const failure = await provider.acquire(contextFor(scratch, {})).catch((error: unknown) => error);
    expectCode(failure, "provider", /no Docker engine is reachable.*Start dockerd/);
    expect((failure as { details: { unavailable?: boolean } }).details.unavailable).toBe(true);
    expectCode(await reap().catch((error: unknown) => error), "provider", /no Docker engine is reachable/);
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
    await rm(scratch, { recursive: true, force: true });
  }
});

it("an engine at a closed TCP port fails with code provider", async () => {
  const scratch = await hostWorkspace();
  try {
    const provider = dockerProvider({ docker: new Docker({ host: "127.0.0.1", port: 1, protocol: "http" }) });
    expectCode(
      await provider.acquire(contextFor(scratch.directory)).catch((error: unknown) => error),
      "provider",
      /no Docker engine is reachable/,
    );
  } finally {
    await scratch.dispose();
  }
});

it("bad options fail at once with code configuration, naming the option", () => {
  const bad: [DockerProviderConfig, RegExp][] = [
    [{ image: "" }, /option image/],
    [{ mode: "remote" as never }, /option mode/],
    [{ user: { uid: -1, gid: 0 } }, /option user.uid/],
    [{ memoryMb: -5 }, /option memoryMb/],
    [{ cpus: Number.NaN }, /option cpus/],
    [{ pidsLimit: 1.5 }, /option pidsLimit/],
    [{ root: "relative/path" }, /option root/],
    [{ home: "/" }, /option home/],
    [{ labels: { "dev.outpost.lease": "0" } }, /reserved/],
    [{ variables: { "A=B": "x" } }, /option variables/],
    [{ volumes: [{ source: "/tmp", target: "relative" }] }, /option volumes/],
  ];
  for (const [config, pattern] of bad) {
    try {
      dockerProvider(config);
      expect.fail(`accepted ${JSON.stringify(config)}`);
    } catch (error) {
      expectCode(error, "configuration", pattern);
    }
  }
});

describeGated("docker errors on a live engine", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  it("a missing image fails with code configuration and says to build it", async () => {
    const scratch = await hostWorkspace();
    try {
      const provider = dockerProvider({ image: "outpost-no-such-image:never" });
      const failure = await provider.acquire(contextFor(scratch.directory)).catch((error: unknown) => error);
      expectCode(failure, "configuration", /outpost-no-such-image:never.*not in the Docker engine.*outpost image build/);
    } finally {
      await scratch.dispose();
    }
  });

  it("a root-owned private worktree is refused before any container exists, naming the user option", async () => {
    const directory = await mkdtemp(join(tmpdir(), "outpost-docker-rootowned-"));
    try {
      const failure = await dockerProvider({})
        .acquire(contextFor(directory))
        .catch((error: unknown) => error);
      expectCode(failure, "configuration", /could not write it.*Pass user: \{ uid: 0, gid: 0 \}/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("a missing worktree and relative context paths are refused", async () => {
    const missing = await dockerProvider({})
      .acquire(contextFor("/nonexistent/outpost/worktree"))
      .catch((error: unknown) => error);
    expect(isOutpostError(missing, "workspace")).toBe(true);
    const relative = await dockerProvider({})
      .acquire(contextFor("relative/dir"))
      .catch((error: unknown) => error);
    expect(isOutpostError(relative, "configuration")).toBe(true);
  });
});
