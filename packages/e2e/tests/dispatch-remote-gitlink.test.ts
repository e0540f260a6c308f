import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxProvider } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble, type DaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble, type VercelDouble } from "@outpost/cloud-doubles/vercel";
import { dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { isolatedDocker } from "./support/isolated-docker.js";

// A gitlink (a submodule entry, mode 160000) the agent commits in a remote sandbox comes back as a gitlink:
// its commit travels in the bundle, the submodule's checkout never does. One it only staged is refused by name.
const gate = dockerGate();
const { provider: isolated, agentWith } = isolatedDocker();
let vercel: VercelDouble;
let daytona: DaytonaDouble;
beforeAll(async () => {
  [vercel, daytona] = await Promise.all([startVercelDouble(), startDaytonaDouble()]);
});
afterAll(async () => {
  await Promise.all([vercel?.close(), daytona?.close()]);
});

const addGitlink = (commit: string, path: string) => `git update-index --add --cacheinfo 160000,${commit},${path}`;

const providers: { name: string; unavailable?: string; provider: () => SandboxProvider }[] = [
  { name: "docker isolated", ...(gate.unavailable ? { unavailable: gate.unavailable.reason } : {}), provider: () => isolated() },
  { name: "vercel (API double)", provider: () => vercelProvider({ ...vercel.credentials, fetch: vercel.fetch }) },
  { name: "daytona (API double)", provider: () => daytonaProvider(daytona.credentials) },
];

describe("remote sync back of a gitlink", () => {
  for (const { name, unavailable, provider } of providers) {
    (unavailable ? it.skip : it)(
      `${name}: a committed gitlink comes back as a gitlink${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
      async () => {
        const repository = scratchRepository();
        const commit = gitIn(repository, "rev-parse", "HEAD");
        const result = await dispatch({
          agent: agentWith({ SHELL: `${addGitlink(commit, "vendor/lib")} && git commit --quiet -m 'add a gitlink'`, FILE: "agent.txt" }),
          brief: "x",
          repository,
          sandboxProvider: provider(),
        });
        expect(result.commits).toHaveLength(2);
        expect(gitIn(repository, "ls-tree", "HEAD", "vendor/lib")).toBe(`160000 commit ${commit}\tvendor/lib`);
        // Like a fresh clone: an empty folder, nothing of a nested repository, and a clean status.
        expect(readdirSync(join(repository, "vendor/lib"))).toEqual([]);
        expect(gitIn(repository, "status", "--porcelain")).toBe("");
      },
      120_000,
    );
  }

  (gate.unavailable ? it.skip : it)(
    "docker isolated: a gitlink staged but not committed is refused, naming it",
    async () => {
      const repository = scratchRepository();
      const commit = gitIn(repository, "rev-parse", "HEAD");
      const error = await dispatch({
        // The script agent commits what is staged with FILE: here the agent commits a file, then stages the gitlink.
        agent: agentWith({
          SHELL: `echo work > work.txt && git add work.txt && git commit --quiet -m work && ${addGitlink(commit, "vendor/staged")}`,
        }),
        brief: "x",
        repository,
        sandboxProvider: isolated(),
      }).then(
        () => {
          throw new Error("the dispatch succeeded");
        },
        (caught: unknown) => caught as { code: string; message: string },
      );
      expect(error.code).toBe("workspace");
      expect(error.message).toContain('stages submodule entries (gitlinks) it did not commit: "vendor/staged"');
      expect(existsSync(join(repository, "vendor"))).toBe(false);
    },
    120_000,
  );
});
