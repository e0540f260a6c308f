import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SandboxProvider } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository, scriptAgent } from "../src/index.js";
import { isolatedDocker } from "./support/isolated-docker.js";

// The `guard` option on both Docker placements: the agent writes a protected file (or too much) inside the
// container; the dispatch fails with code guard, main never moves, and the work is on its branch.
const gate = dockerGate();
const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
const mounted = () =>
  dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "none",
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
  });
const mountedAgent = (behaviour: Record<string, string>) => scriptAgent({ directory: agentDirectory, executable: "node", behaviour });
const isolated = isolatedDocker();
const placements: readonly [string, () => SandboxProvider, typeof mountedAgent][] = [
  ["mounted", mounted, mountedAgent],
  ["isolated", () => isolated.provider(), isolated.agentWith],
];
const failure = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error("the dispatch succeeded");
    },
    (caught: unknown) => caught as { code: string; details: { guard: unknown; recovery: { branch: string; commits: string[] } } },
  );
const lockEdit = "echo '{}' > package-lock.json && git add package-lock.json && git commit -qm lock";

(gate.unavailable ? describe.skip : describe)(
  `dispatch guard on Docker${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    for (const [placement, provider, agentWith] of placements) {
      it(`${placement}: a protected path changed in the container fails with code guard and keeps the work on its branch`, async () => {
        const repository = scratchRepository();
        const before = gitIn(repository, "rev-parse", "main");
        const error = await failure(
          dispatch({
            agent: agentWith({ SHELL: lockEdit, FILE: "work.txt" }),
            brief: "write work.txt",
            repository,
            sandboxProvider: provider(),
            branch: { mode: "integrate" },
            guard: { protectedPaths: ["**/package-lock.json"] },
          }),
        );
        expect(error.code).toBe("guard");
        expect(error.details.guard).toMatchObject({ protectedPaths: ["package-lock.json"], exceeded: ["protectedPaths"] });
        expect(gitIn(repository, "rev-parse", "main")).toBe(before);
        const recovery = error.details.recovery;
        expect(recovery.commits).toHaveLength(2);
        expect(gitIn(repository, "show", `${recovery.branch}:work.txt`)).toContain("script agent");
      }, 120_000);

      it(`${placement}: more changed lines than maxChangedLines fail with code guard; within the bound the work integrates`, async () => {
        const repository = scratchRepository();
        const big = "seq 1 30 > big.txt && git add big.txt && git commit -qm big";
        const error = await failure(
          dispatch({
            agent: agentWith({ SHELL: big }),
            brief: "x",
            repository,
            sandboxProvider: provider(),
            branch: { mode: "integrate" },
            guard: { maxChangedLines: 29 },
          }),
        );
        expect(error.code).toBe("guard");
        expect(error.details.guard).toMatchObject({ changedLines: 30, exceeded: ["maxChangedLines"] });
        const result = await dispatch({
          agent: agentWith({ SHELL: big }),
          brief: "x",
          repository,
          sandboxProvider: provider(),
          branch: { mode: "integrate" },
          guard: { maxChangedLines: 30, maxChangedFiles: 1 },
        });
        expect(gitIn(repository, "rev-parse", "main")).toBe(result.commits[0]);
      }, 180_000);
    }
  },
);
