import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository, scriptAgent } from "../src/index.js";
import { isolatedDocker } from "./support/isolated-docker.js";

const gate = dockerGate();
const { provider: isolated, agentWith } = isolatedDocker();
const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
const me = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
const failure = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error("the dispatch succeeded");
    },
    (caught: unknown) => caught as { code: string; message: string },
  );

(gate.unavailable ? describe.skip : describe)(
  `sync back bounds${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("two 1 GiB sparse files are refused against the byte budget in the sandbox; the host worktree is untouched", async () => {
      const repository = scratchRepository();
      const error = await failure(
        dispatch({
          agent: agentWith({ SHELL: "truncate -s 1G sparse-a && truncate -s 1G sparse-b", FILE: "agent.txt" }),
          brief: "x",
          repository,
          sandboxProvider: isolated(),
        }),
      );
      expect(error.code).toBe("limit");
      expect(error.message).toMatch(
        /over limits\.syncBackBytes .*in the sandbox, before anything was sent|in the sandbox, before anything was sent: .*syncBackBytes/,
      );
      expect(existsSync(join(repository, "sparse-a"))).toBe(false);
    }, 120_000);

    it("many files are refused against the file budget; under it they come back", async () => {
      const make = "mkdir many && i=0; while [ $i -lt 60 ]; do echo $i > many/f$i; i=$((i+1)); done";
      const repository = scratchRepository();
      const error = await failure(
        dispatch({
          agent: agentWith({ SHELL: make, FILE: "agent.txt" }),
          brief: "x",
          repository,
          sandboxProvider: isolated(),
          limits: { syncBackFiles: 50 },
        }),
      );
      expect(error.code).toBe("limit");
      expect(error.message).toContain("60 files, over limits.syncBackFiles (50)");
      expect(existsSync(join(repository, "many"))).toBe(false);
      const accepted = scratchRepository();
      // Named: the worktree is kept, and with it the uncommitted files that came back.
      const result = await dispatch({
        agent: agentWith({ SHELL: make, FILE: "agent.txt" }),
        brief: "x",
        repository: accepted,
        sandboxProvider: isolated(),
        branch: { mode: "named", name: "many" },
        limits: { syncBackFiles: 60 },
      });
      expect(readdirSync(join(result.directory, "many"))).toHaveLength(60);
    }, 180_000);

    it("committed work is held to the byte budget by its uncompressed objects and the files it writes: a blob bomb is refused, the host repository untouched", async () => {
      // 50 MB of zeros travels as a few kilobytes of bundle; 30 copies of one 1 MB file are one blob but 30 MB on disk.
      const bomb = "head -c 50000000 /dev/zero > bomb.bin && git add bomb.bin && git commit --quiet -m bomb";
      const copies = "head -c 1000000 /dev/urandom > one && i=0; while [ $i -lt 30 ]; do cp one copy$i; i=$((i+1)); done";
      const cases = [
        { shell: bomb, expected: /its objects hold \d+ bytes uncompressed, over limits\.syncBackBytes \(10000000\)/ },
        {
          shell: `${copies} && git add . && git commit --quiet -m copies`,
          expected: /its commits write \d+ bytes of files into the worktree, over limits\.syncBackBytes \(10000000\)/,
        },
      ];
      for (const { shell, expected } of cases) {
        const repository = scratchRepository();
        const before = gitIn(repository, "rev-parse", "HEAD");
        const error = await failure(
          dispatch({
            agent: agentWith({ SHELL: shell, FILE: "agent.txt" }),
            brief: "x",
            repository,
            sandboxProvider: isolated(),
            limits: { syncBackBytes: 10_000_000 },
          }),
        );
        expect(error.code).toBe("limit");
        expect(error.message).toMatch(expected);
        expect(error.message).toContain("refused before the host repository was touched");
        expect(gitIn(repository, "rev-parse", "HEAD")).toBe(before);
        expect(gitIn(repository, "for-each-ref", "--format=%(refname)", "refs/outpost")).toBe("");
        expect(readdirSync(repository).filter((name) => name.startsWith("bomb") || name.startsWith("copy"))).toEqual([]);
        // Nothing of it reached the host's object store (the recovery backup keeps it as a bundle, compressed).
        if (shell === bomb) {
          const zeros = createHash("sha1").update("blob 50000000\0").update(Buffer.alloc(50_000_000)).digest("hex");
          expect(() => gitIn(repository, "cat-file", "-e", zeros)).toThrow();
          expect(error.message).toMatch(/The work is backed up in .*\.outpost\/recovery\//);
          expect(existsSync(String((error as { details?: { recoveryLocation?: string } }).details?.recoveryLocation))).toBe(true);
        }
      }
    }, 180_000);

    it("mounted: setuid and setgid bits the agent set do not stay in the host worktree", async () => {
      const repository = scratchRepository();
      const warnings: string[] = [];
      await dispatch({
        agent: scriptAgent({
          directory: agentDirectory,
          executable: "node",
          behaviour: { SHELL: "cp /bin/sh ./rootshell && chmod 6755 ./rootshell && mkdir shared && chmod 2775 shared", FILE: "agent.txt" },
        }),
        brief: "x",
        repository,
        sandboxProvider: dockerProvider({
          image: DOCKER_TEST_IMAGE,
          network: "none",
          user: me,
          volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
        }),
        warn: (message) => warnings.push(message),
      });
      expect(statSync(join(repository, "rootshell")).mode & 0o7777).toBe(0o755);
      expect(statSync(join(repository, "shared")).mode & 0o7000).toBe(0);
      expect(warnings.join("\n")).toMatch(/setuid or setgid bits .*rootshell/);
    }, 120_000);
  },
);

describe("local provider", () => {
  it("setuid and setgid bits the agent set do not stay in the worktree, with a warning naming them", async () => {
    const repository = scratchRepository();
    const warnings: string[] = [];
    await dispatch({
      agent: scriptAgent({
        directory: agentDirectory,
        behaviour: { SHELL: "cp /bin/sh ./rootshell && chmod 6755 ./rootshell && mkdir shared && chmod 2775 shared", FILE: "agent.txt" },
      }),
      brief: "x",
      repository,
      sandboxProvider: (await import("@outpost/provider-local")).localProvider({ home: "private" }),
      warn: (message) => warnings.push(message),
      logging: false,
    });
    expect(statSync(join(repository, "rootshell")).mode & 0o7777).toBe(0o755);
    expect(statSync(join(repository, "shared")).mode & 0o7000).toBe(0);
    expect(warnings.join("\n")).toMatch(/setuid or setgid bits .*rootshell/);
  });
});

describe("named base", () => {
  it("a base that names no commit answers configuration, naming it", async () => {
    const repository = scratchRepository();
    const error = await failure(
      dispatch({
        agent: scriptAgent({ directory: agentDirectory }),
        brief: "x",
        repository,
        sandboxProvider: (await import("@outpost/provider-local")).localProvider({ home: "private" }),
        branch: { mode: "named", name: "feature", base: "no-such-ref" },
        logging: false,
      }),
    );
    expect(error.code).toBe("configuration");
    expect(error.message).toContain('"no-such-ref"');
    expect(gitIn(repository, "branch", "--list", "feature")).toBe("");
  });
});
