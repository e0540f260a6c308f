import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isOutpostError, type AgentAdapter, type CustomAgent, type SandboxLease, type SandboxProvider } from "@outpost/core";
import { createSandbox } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble, type DaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble, type VercelDouble } from "@outpost/cloud-doubles/vercel";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { isolatedDocker } from "./support/isolated-docker.js";

// The warm sandbox (page 004) on every placement but the host's (create-sandbox.test.ts has that one): Docker
// mounted (a private git directory kept by the lease, refilled at each dispatch's baseline), Docker isolated and
// the Vercel and Daytona doubles (remote: each dispatch seeds the root that already holds the branch). One lease
// for two dispatches, a resume, a fork and a command; an overlap refused; then close.
const gate = dockerGate();
const { provider: isolated, agentWith, agentDirectory } = isolatedDocker();
const mounted = () =>
  dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "none",
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
  });
let vercel: VercelDouble;
let daytona: DaytonaDouble;
beforeAll(async () => {
  [vercel, daytona] = await Promise.all([startVercelDouble(), startDaytonaDouble()]);
});
afterAll(async () => {
  await Promise.all([vercel?.close(), daytona?.close()]);
});

/** The provider with its acquisitions and releases counted: the warm sandbox must acquire once. */
function counted(inner: SandboxProvider): { provider: SandboxProvider; counts: () => [number, number] } {
  let acquired = 0;
  let released = 0;
  return {
    provider: {
      ...inner,
      acquire: async (context) => {
        acquired++;
        const lease = await inner.acquire(context);
        const release = lease.release.bind(lease);
        return Object.assign(lease, { release: () => (released++, release()) });
      },
    },
    counts: () => [acquired, released],
  };
}

/** A custom agent over the script agent whose fork hook copies the conversation's file in the sandbox. */
function forkingAgent(process: AgentAdapter): CustomAgent {
  return {
    kind: "custom",
    name: "forking-script-agent",
    requiresFinishedEvent: true,
    storage: process.storage!,
    request: (turn) => process.command(turn),
    createDecoder: (context) => process.createDecoder(context),
    fork: async (id, { sandbox }) => {
      const copy = randomUUID();
      const sessions = `${sandbox.home}/.script-agent/sessions`;
      const copied = await sandbox.invoke({ executable: "cp", arguments: [`${sessions}/${id}.jsonl`, `${sessions}/${copy}.jsonl`] });
      if (copied.status !== 0) throw new Error(`cp failed: ${copied.stderr}`);
      return copy;
    },
  };
}

const unavailable = gate.unavailable?.reason;
const placements: { name: string; unavailable?: string; provider: () => SandboxProvider; remote: boolean }[] = [
  { name: "Docker mounted", ...(unavailable ? { unavailable } : {}), provider: mounted, remote: false },
  { name: "Docker isolated", ...(unavailable ? { unavailable } : {}), provider: () => isolated(), remote: true },
  { name: "Vercel (API double)", provider: () => vercelProvider({ ...vercel.credentials, fetch: vercel.fetch }), remote: true },
  { name: "Daytona (API double)", provider: () => daytonaProvider(daytona.credentials), remote: true },
];

describe("createSandbox() on mounted and remote providers", () => {
  (unavailable ? it.skip : it)(
    `Docker mounted: links the sandbox plants in its git directory between dispatches are replaced, never followed; close({ preserve })${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
    async () => {
      const repository = scratchRepository();
      const objects = join(repository, ".git", "objects");
      const before = readdirSync(objects).sort();
      const inner = mounted();
      let held: SandboxLease | undefined;
      const sandbox = await createSandbox({
        sandboxProvider: { ...inner, acquire: async (context) => (held = await inner.acquire(context)) },
        repository,
        branch: { mode: "named", name: "planted" },
        agent: agentWith({}),
      });
      let preserved: Awaited<ReturnType<typeof sandbox.close>> | undefined;
      try {
        await sandbox.dispatch("Write one.txt.", { agent: agentWith({ FILE: "one.txt" }) });
        // The host's objects are mounted read-only at their host path: a refill that followed these links would
        // write refs/heads/planted and a config into the host's git directory.
        const planted = await sandbox.command({
          executable: "sh",
          arguments: [
            "-c",
            'd=$(git rev-parse --absolute-git-dir) && rm -rf "$d/refs" "$d/config" && ln -s "$1" "$d/refs" && ln -s "$1/config" "$d/config"',
            "plant",
            objects,
          ],
        });
        expect(planted.status, planted.stderr).toBe(0);
        const second = await sandbox.dispatch("Write two.txt.", { agent: agentWith({ FILE: "two.txt" }) });
        expect(second.commits).toHaveLength(1);
        expect(gitIn(repository, "log", "--format=%s", "-2", "planted")).toBe("script agent: two.txt\nscript agent: one.txt");
        // Preserved: the container and its private git directory stay for inspection, named in the outcome.
        preserved = await sandbox.close({ preserve: true });
        expect(preserved).toMatchObject({ preserved: true, directory: sandbox.workspace.directory });
        const gitDirectory = preserved.preserved ? preserved.gitDirectory : undefined;
        expect(gitDirectory !== undefined && existsSync(join(gitDirectory, "HEAD"))).toBe(true);
        expect((await held!.invoke({ executable: "git", arguments: ["log", "--format=%s", "-1"] })).stdout.trim()).toBe(
          "script agent: two.txt",
        );
      } finally {
        if (preserved === undefined) await sandbox.close();
        else {
          await held?.release();
          if (preserved.preserved && preserved.gitDirectory) rmSync(preserved.gitDirectory, { recursive: true, force: true });
        }
      }
      expect(readdirSync(objects).filter((name) => !before.includes(name) && !/^[0-9a-f]{2}$/.test(name))).toEqual([]);
      expect(gitIn(repository, "fsck", "--strict", "--no-dangling")).toBe("");
    },
    240_000,
  );

  for (const placement of placements) {
    (placement.unavailable ? it.skip : it)(
      `${placement.name}: one lease across two dispatches, a resume, a fork and a command${placement.unavailable ? ` (unavailable: ${placement.unavailable})` : ""}`,
      async () => {
        const repository = scratchRepository();
        const { provider, counts } = counted(placement.provider());
        const diagnostics: string[] = [];
        const sandbox = await createSandbox({
          sandboxProvider: provider,
          repository,
          ...(placement.remote ? {} : { branch: { mode: "named", name: "warm" } }),
          agent: agentWith({}),
          conversationHome: mkdtempSync(join(tmpdir(), "outpost-warm-home-")),
        });
        try {
          // Page 004: integrate by default on a remote provider.
          expect(sandbox.workspace.mode).toBe(placement.remote ? "integrate" : "named");
          const first = await sandbox.dispatch("Write one.txt.", { agent: agentWith({ FILE: "one.txt" }) });
          // The host moves the work branch between dispatches: the next one starts there (a mounted sandbox's
          // private git directory is refilled at that baseline; a remote root is re-seeded with the new commit).
          writeFileSync(join(sandbox.workspace.directory, "host.txt"), "from the host\n");
          gitIn(sandbox.workspace.directory, "add", "host.txt");
          gitIn(sandbox.workspace.directory, "commit", "--quiet", "-m", "host commit");
          // The second starts where the first left the branch: one.txt is there, in the sandbox and in git (the
          // script agent fails its turn when its shell step fails).
          const second = await sandbox.dispatch("Write two.txt.", {
            agent: agentWith({
              FILE: "two.txt",
              SHELL: "test -f one.txt && test -f host.txt && git log --format=%s -1 | grep -qx 'host commit'",
            }),
            diagnostic: (message) => diagnostics.push(message),
          });
          expect([first.commits.length, second.commits.length]).toEqual([1, 1]);
          const branch = placement.remote ? sandbox.workspace.target! : "warm";
          expect(gitIn(repository, "log", "--format=%s", "-3", branch)).toBe("script agent: two.txt\nhost commit\nscript agent: one.txt");
          if (placement.remote) {
            // The root held the branch: the second seed sent only what is newer (the host's commit), as a delta.
            const seed = diagnostics.find((message) => message.startsWith("seed: "));
            expect(seed).toMatch(/^seed: [1-9]\d* bytes of git bundle sent \(delta over commits the sandbox held\)$/);
          }

          const resumed = await sandbox.resume(first.conversationId!, "What did I ask?");
          expect(resumed.conversationId).toBe(first.conversationId);
          expect(resumed.text).toContain('saw 1 earlier prompt(s): ["Write one.txt."]');
          // The script agent cannot fork natively: a custom agent over it forks through its hook, in the sandbox.
          const forked = await sandbox.fork(second.conversationId!, "Branch off.", { agent: forkingAgent(agentWith({})) });
          expect(forked.conversationId).not.toBe(second.conversationId);
          expect(forked.text).toContain('saw 1 earlier prompt(s): ["Write two.txt."]');
          const again = await resumed.resume("And then?");
          expect(again.text).toContain("saw 2 earlier prompt(s)");

          const running = sandbox.dispatch("Write three.txt.", { agent: agentWith({ FILE: "three.txt", DELAY_MS: "500" }) });
          const overlap = await sandbox.command({ executable: "true" }).catch((error: unknown) => error);
          expect(isOutpostError(overlap, "configuration")).toBe(true);
          expect((await running).commits).toHaveLength(1);

          const listed = await sandbox.command({ executable: "git", arguments: ["ls-files"] });
          expect(listed.stdout.split("\n")).toEqual(expect.arrayContaining(["one.txt", "two.txt", "three.txt"]));
          expect(counts()).toEqual([1, 0]);
        } finally {
          await sandbox.close();
        }
        expect(counts()).toEqual([1, 1]);
        expect(gitIn(repository, "fsck", "--strict", "--no-dangling")).toBe("");
        if (placement.remote) expect(readFileSync(join(repository, "three.txt"), "utf8")).toContain("script agent");
      },
      240_000,
    );
  }
});
