import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { isolatedDocker } from "./support/isolated-docker.js";

const gate = dockerGate();
const { provider, agentWith } = isolatedDocker();
const volumes: string[] = [];
const failure = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error("the dispatch succeeded");
    },
    (caught: unknown) => caught as { code: string; message: string; details: Record<string, unknown> },
  );
/** A repository whose committed .gitignore ignores `local.secret`, with host-only files to copy. */
const repositoryWithCopies = () => {
  const repository = scratchRepository();
  writeFileSync(join(repository, ".gitignore"), "local.secret\n");
  gitIn(repository, "add", ".gitignore");
  gitIn(repository, "commit", "--quiet", "-m", "ignore local.secret");
  writeFileSync(join(repository, ".env"), "TOKEN=host\n");
  writeFileSync(join(repository, "local.secret"), "secret\n");
  // Ignored on this host only: the sandbox, which gets commits, does not ignore it.
  writeFileSync(join(repository, ".git", "info", "exclude"), ".env\n");
  return repository;
};
const commitAll = "git add -A && git commit --quiet -m 'agent edits'";

afterAll(() => {
  for (const volume of volumes) execFileSync("docker", ["volume", "rm", "--force", volume], { stdio: "ignore" });
});

(gate.unavailable ? describe.skip : describe)(
  `remote repository sync on Docker isolated${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("a second dispatch into a sandbox holding a verified ancestor sends a delta bundle", async () => {
      const repository = scratchRepository();
      // Incompressible history, so the full bundle is large next to a one-file delta.
      writeFileSync(join(repository, "blob.bin"), randomBytes(256 * 1024));
      gitIn(repository, "add", "blob.bin");
      gitIn(repository, "commit", "--quiet", "-m", "large history");
      const volume = `outpost-test-root-${randomUUID().slice(0, 8)}`;
      volumes.push(volume);
      const first = await dispatch({ agent: agentWith({ FILE: "one.txt" }), brief: "x", repository, sandboxProvider: provider(volume) });
      expect(first.commits).toHaveLength(1);
      // The host moves on by one small commit before the second dispatch.
      writeFileSync(join(repository, "host.txt"), "host change\n");
      gitIn(repository, "add", "host.txt");
      gitIn(repository, "commit", "--quiet", "-m", "host change");
      const diagnostics: string[] = [];
      const second = await dispatch({
        agent: agentWith({ FILE: "two.txt" }),
        brief: "x",
        repository,
        sandboxProvider: provider(volume),
        diagnostic: (message) => diagnostics.push(message),
      });
      expect(second.commits).toHaveLength(1);
      const sent = (message: string | undefined) => Number(/^seed: (\d+) bytes/.exec(message ?? "")?.[1]);
      const seeds = diagnostics.filter((message) => message.startsWith("seed: "));
      expect(seeds).toHaveLength(1);
      expect(seeds[0]).toContain("delta");
      // The full seed a fresh sandbox gets, for comparison.
      const fresh: string[] = [];
      await dispatch({
        agent: agentWith({}),
        brief: "x",
        repository,
        sandboxProvider: provider(),
        diagnostic: (message) => fresh.push(message),
      });
      const full = sent(fresh.find((message) => message.startsWith("seed: ")));
      expect(full).toBeGreaterThan(256 * 1024);
      expect(sent(seeds[0])).toBeGreaterThan(0);
      expect(sent(seeds[0])).toBeLessThan(full / 20);
      expect(gitIn(repository, "show", "main:two.txt")).toContain("script agent");
      expect(gitIn(repository, "show", "main:one.txt")).toContain("script agent");
    }, 180_000);

    it("a sandbox that claims commits it does not hold gets the whole branch, and the dispatch still succeeds", async () => {
      const repository = scratchRepository();
      const volume = `outpost-test-root-${randomUUID().slice(0, 8)}`;
      volumes.push(volume);
      await dispatch({ agent: agentWith({ FILE: "one.txt" }), brief: "x", repository, sandboxProvider: provider(volume) });
      writeFileSync(join(repository, "host.txt"), "host change\n");
      gitIn(repository, "add", "host.txt");
      gitIn(repository, "commit", "--quiet", "-m", "host change");
      // A previous agent left refs naming host commits whose objects the sandbox never received.
      const claimed = gitIn(repository, "rev-parse", "main");
      const plant = `mkdir -p /workspace/.git/refs/heads && echo ${claimed} > /workspace/.git/refs/heads/claimed`;
      execFileSync("docker", ["run", "--rm", "-v", `${volume}:/workspace`, DOCKER_TEST_IMAGE, "sh", "-c", plant]);
      const diagnostics: string[] = [];
      const result = await dispatch({
        agent: agentWith({ FILE: "two.txt" }),
        brief: "x",
        repository,
        sandboxProvider: provider(volume),
        diagnostic: (message) => diagnostics.push(message),
      });
      expect(result.commits).toHaveLength(1);
      expect(diagnostics.find((message) => message.startsWith("seed: "))).not.toContain("delta");
      expect(gitIn(repository, "show", "main:two.txt")).toContain("script agent");
    }, 180_000);

    it("a persistent root holding a previous agent's files is cleaned at seed, with or without its repository", async () => {
      for (const keepRepository of [false, true]) {
        const repository = scratchRepository();
        const volume = `outpost-test-root-${randomUUID().slice(0, 8)}`;
        volumes.push(volume);
        await dispatch({ agent: agentWith({ FILE: "one.txt" }), brief: "x", repository, sandboxProvider: provider(volume) });
        const plant = `${keepRepository ? "" : "rm -rf /workspace/.git && "}echo stale > /workspace/leftover.txt && mkdir -p /workspace/old && echo stale > /workspace/old/file.txt`;
        execFileSync("docker", ["run", "--rm", "-v", `${volume}:/workspace`, DOCKER_TEST_IMAGE, "sh", "-c", plant]);
        const result = await dispatch({
          agent: agentWith({ FILE: "two.txt" }),
          brief: "x",
          repository,
          sandboxProvider: provider(volume),
          branch: { mode: "named", name: `clean-${keepRepository}` },
        });
        expect(result.commits).toHaveLength(1);
        // Untracked files left in the sandbox would come back as the agent's uncommitted work.
        const worktree = result.directory;
        // Nothing uncommitted came back, so the worktree was removed at close.
        expect(result.workspaceKept, `leftovers brought back (repository kept: ${keepRepository})`).toBe(false);
        expect(existsSync(join(worktree, "leftover.txt")), `leftover brought back (repository kept: ${keepRepository})`).toBe(false);
        expect(existsSync(join(worktree, "old"))).toBe(false);
      }
    }, 180_000);

    it("without includeUncommitted: work touching a copy no committed .gitignore ignores fails with workspace, host untouched", async () => {
      const repository = repositoryWithCopies();
      const main = gitIn(repository, "rev-parse", "main");
      const error = await failure(
        dispatch({
          agent: agentWith({ SHELL: `test ! -e .env && test ! -e local.secret && echo TOKEN=agent > .env && ${commitAll}` }),
          brief: "x",
          repository,
          sandboxProvider: provider(),
          copies: [".env", "local.secret"],
        }),
      );
      expect(error.code).toBe("workspace");
      expect(error.message).toContain('".env"');
      expect(error.details.paths).toEqual([".env"]);
      expect(gitIn(repository, "rev-parse", "main")).toBe(main);
      expect(readFileSync(join(repository, ".env"), "utf8")).toBe("TOKEN=host\n");
      // The work is rescued in the recovery location.
      expect(existsSync(join(error.details.recoveryLocation as string, "work.bundle"))).toBe(true);
    }, 120_000);

    it("without includeUncommitted: work touching a file the worktree changed before the run fails with workspace", async () => {
      const repository = repositoryWithCopies();
      const error = await failure(
        dispatch({
          agent: agentWith({ SHELL: `grep -vq hook README.md && echo agent >> README.md && ${commitAll}` }),
          brief: "x",
          repository,
          sandboxProvider: provider(),
          hooks: { workspaceReady: ["echo hook >> README.md"] },
        }),
      );
      expect(error.code).toBe("workspace");
      expect(error.details.paths).toEqual(["README.md"]);
    }, 120_000);

    it("without includeUncommitted: work beside untouched copies and uncommitted files applies", async () => {
      const repository = repositoryWithCopies();
      const result = await dispatch({
        agent: agentWith({ FILE: "other.txt" }),
        brief: "x",
        repository,
        sandboxProvider: provider(),
        copies: [".env", "local.secret"],
        hooks: { workspaceReady: ["echo hook >> README.md"] },
      });
      expect(result.commits).toHaveLength(1);
      expect(gitIn(repository, "show", "main:other.txt")).toContain("script agent");
    }, 120_000);

    it("includeUncommitted: uncommitted and untracked files are sent, and the work building on them applies", async () => {
      const repository = repositoryWithCopies();
      const seen: string[] = [];
      const result = await dispatch({
        agent: agentWith({ SHELL: `cat .env README.md && test ! -e .gitignore && echo agent >> README.md && ${commitAll}` }),
        brief: "x",
        repository,
        sandboxProvider: provider(),
        includeUncommitted: true,
        copies: [".env", "local.secret"],
        hooks: { workspaceReady: ["echo hook >> README.md", "rm .gitignore"] },
        observe: ({ event }) => {
          if (event.type === "text") seen.push(event.text);
        },
      });
      expect(seen.join("\n")).toContain("TOKEN=host");
      expect(result.commits).toHaveLength(1);
      expect(gitIn(repository, "show", "main:README.md")).toBe("# scratch\nhook\nagent");
      expect(gitIn(repository, "show", "main:.env")).toBe("TOKEN=host");
      // The deletion travelled too, and with .gitignore gone local.secret was an untracked, non-ignored file.
      expect(gitIn(repository, "ls-tree", "--name-only", "main").split("\n")).toEqual([".env", "README.md", "local.secret"]);
    }, 120_000);

    it("includeUncommitted: a sent file changed on the host during the run is a conflict, the host's version kept", async () => {
      const repository = repositoryWithCopies();
      let worktree = "";
      const error = await failure(
        dispatch({
          agent: agentWith({ DELAY_MS: "1500", SHELL: `echo agent >> README.md && ${commitAll}` }),
          brief: "x",
          repository,
          sandboxProvider: provider(),
          includeUncommitted: true,
          hooks: { workspaceReady: ["echo hook >> README.md"] },
          observe: () => {
            if (worktree) return;
            const workspaces = join(repository, ".outpost", "workspaces");
            worktree = join(workspaces, readdirSync(workspaces)[0]!);
            writeFileSync(join(worktree, "README.md"), "edited on the host meanwhile\n");
          },
        }),
      );
      expect(error.code).toBe("conflict");
      expect(error.details.paths).toEqual(["README.md"]);
      expect(readFileSync(join(worktree, "README.md"), "utf8")).toBe("edited on the host meanwhile\n");
    }, 120_000);

    it("includeUncommitted is refused for a provider that is not remote", async () => {
      const repository = scratchRepository();
      const error = await failure(
        dispatch({
          agent: agentWith({}),
          brief: "x",
          repository,
          sandboxProvider: dockerProvider({ image: DOCKER_TEST_IMAGE }),
          includeUncommitted: true,
        }),
      );
      expect(error.code).toBe("configuration");
    });
  },
);
