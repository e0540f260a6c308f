import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OutpostError, type SandboxProvider } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { isolatedDocker } from "./support/isolated-docker.js";

const gate = dockerGate();
const { provider, agentWith } = isolatedDocker();
const failure = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error("the dispatch succeeded");
    },
    (caught: unknown) => caught as { code: string; message: string; details: Record<string, unknown> },
  );
const commitAll = "git add -A && git commit --quiet -m 'agent edits'";
const hostState = (repository: string) => ({
  refs: gitIn(repository, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/outpost"),
  status: gitIn(repository, "status", "--porcelain"),
});

/** A named-branch dispatch (the agent writes remote.txt) in which the host does `interfere` at the first agent event. */
function interfered(repository: string, branch: string, interfere: () => void) {
  let done = false;
  return failure(
    dispatch({
      agent: agentWith({ FILE: "remote.txt", DELAY_MS: "1500" }),
      brief: "x",
      repository,
      sandboxProvider: provider(),
      branch: { mode: "named", name: branch },
      observe: () => {
        if (done) return;
        done = true;
        interfere();
      },
    }),
  );
}

/** Restores the work from a recovery backup with its documented command; returns remote.txt of the restored branch. */
function restoredRemoteFile(repository: string, recovery: string): string {
  const manifest = JSON.parse(readFileSync(join(recovery, "manifest.json"), "utf8")) as { restore: string };
  gitIn(repository, ...manifest.restore.replace(/^git /, "").split(" "));
  const restored = gitIn(repository, "for-each-ref", "--format=%(refname:short)", "refs/heads/outpost-recovered-*");
  return gitIn(repository, "show", `${restored}:remote.txt`);
}

(gate.unavailable ? describe.skip : describe)(
  `dispatch on Docker isolated (remote placement)${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("defaults to integrate: the repository is seeded as a bundle, the commit comes back verified and integrates", async () => {
      const repository = scratchRepository();
      const diagnostics: string[] = [];
      const seen: string[] = [];
      // Planted in the host's git directory: a remote sandbox must never see any of it.
      writeFileSync(join(repository, ".git", "hooks", "post-checkout"), "#!/bin/sh\necho host hook\n", { mode: 0o755 });
      const result = await dispatch({
        agent: agentWith({ FILE: "remote.txt", SHELL: "ls .git/hooks; git config --list --local" }),
        observe: ({ event }) => {
          if (event.type === "text") seen.push(event.text);
        },
        brief: "write remote.txt",
        repository,
        sandboxProvider: provider(),
        diagnostic: (message) => diagnostics.push(message),
      });
      expect(result.commits).toHaveLength(1);
      expect(result.branch).toBe("main");
      expect(gitIn(repository, "rev-parse", "main")).toBe(result.commits[0]);
      expect(readFileSync(join(repository, "remote.txt"), "utf8")).toContain("script agent");
      expect(diagnostics.some((message) => /^seed: \d+ bytes of git bundle sent$/.test(message))).toBe(true);
      expect(gitIn(repository, "fsck", "--strict", "--no-dangling")).toBe("");
      expect(seen.join("\n")).toContain("core.repositoryformatversion");
      expect(seen.join("\n")).not.toContain("post-checkout");
      // The backup taken before applying goes once the work is applied.
      expect(existsSync(join(repository, ".outpost", "recovery", result.dispatchId))).toBe(false);
    }, 120_000);

    it("refuses branch mode current before anything is allocated", async () => {
      const repository = scratchRepository();
      const error = await failure(
        dispatch({ agent: agentWith({}), brief: "x", repository, sandboxProvider: provider(), branch: { mode: "current" } }),
      );
      expect(error.code).toBe("configuration");
    });

    it("results the sandbox forges in its sync-back output are refused before the host is touched", async () => {
      // The sandbox controls its binaries. A base64 that adds a second status section to what it encodes; a
      // tar that packs the listed files as a hostile archive (a name climbing out of the tree, a link out).
      const forgedStatus = Buffer.from("A  ../../outside\0").toString("base64");
      const forger = [
        "#!/bin/sh",
        'case "$1" in -d) exec /usr/bin/base64 "$@";; esac',
        '/usr/bin/base64 "$@"',
        `printf '\\n@@status\\n%s\\n' ${forgedStatus}`,
        "",
      ].join("\n");
      const hostileTar = (name: string, type: "0" | "2", target = "") =>
        [
          "#!/bin/sh",
          `case "$*" in "-cf - --"*) echo ${tarEntry(name, type, target).toString("base64")} | /usr/bin/base64 -d; exit 0;; esac`,
          'exec /usr/bin/tar "$@"',
          "",
        ].join("\n");
      const install = (name: string, script: string) =>
        `echo ${Buffer.from(script).toString("base64")} | /usr/bin/base64 -d > /usr/local/bin/${name} && chmod +x /usr/local/bin/${name}`;
      for (const [shim, refusal] of [
        [install("base64", forger), /refused before the host was touched: its output holds status twice/],
        [`echo x > note.txt && ${install("tar", hostileTar("../../outside", "0"))}`, /Refused .*\.\.\/\.\.\/outside.*leaves the tree/],
        [`echo x > note.txt && ${install("tar", hostileTar("note.txt", "2", "/etc/passwd"))}`, /note\.txt/],
      ] as const) {
        const repository = scratchRepository();
        const before = hostState(repository);
        const error = await failure(
          dispatch({
            agent: agentWith({ SHELL: `mkdir -p /usr/local/bin && ${shim}`, FILE: "evil.txt" }),
            brief: "x",
            repository,
            sandboxProvider: provider(),
          }),
        );
        expect(error.code, String(refusal)).toBe("workspace");
        expect(error.message).toMatch(refusal);
        const after = hostState(repository);
        expect(after.refs.split("\n").filter((line) => line.startsWith("refs/heads/main"))).toEqual(
          before.refs.split("\n").filter((line) => line.startsWith("refs/heads/main")),
        );
        expect(existsSync(join(repository, "evil.txt"))).toBe(false);
        expect(existsSync(join(repository, "note.txt"))).toBe(false);
        expect(existsSync(join(repository, "..", "outside"))).toBe(false);
      }
    }, 180_000);

    it("a truncated bundle from the sandbox is refused before the host is touched", async () => {
      const repository = scratchRepository();
      const before = hostState(repository);
      // A hostile agent shadows git in the sandbox so the engine's bundle comes out truncated.
      const shim = [
        "mkdir -p /usr/local/bin",
        `printf '%s\\n' '#!/bin/sh' '/usr/bin/git "$@"; status=$?' 'case "$*" in *"bundle create"*) for f in $(find "$HOME/.outpost" -name "*.bundle"); ` +
          `do head -c 120 "$f" > "$f.cut" && mv "$f.cut" "$f"; done;; esac' 'exit $status' > /usr/local/bin/git`,
        "chmod +x /usr/local/bin/git",
      ].join(" && ");
      const error = await failure(
        dispatch({ agent: agentWith({ SHELL: shim, FILE: "evil.txt" }), brief: "x", repository, sandboxProvider: provider() }),
      );
      expect(error.code).toBe("workspace");
      expect(error.message).toMatch(
        /refused before the host was touched: (the bundle is unreadable|its objects are incomplete or corrupt)/,
      );
      const after = hostState(repository);
      expect(after.refs.split("\n").filter((line) => line.startsWith("refs/heads/main"))).toEqual(
        before.refs.split("\n").filter((line) => line.startsWith("refs/heads/main")),
      );
      expect(existsSync(join(repository, "evil.txt"))).toBe(false);
      // The backup taken while the bundle was verified went with the refusal.
      const recovery = join(repository, ".outpost", "recovery");
      expect(existsSync(recovery) ? readdirSync(recovery) : []).toEqual([]);
    }, 120_000);

    // Objects git's own checks reject, made with plumbing in the sandbox: git reads a bundle without checking
    // them, so they are caught when the host fetches the verified branch, before a ref of the host moves.
    const forgedCommits: [string, string, RegExp][] = [
      [
        "a tree holding a .git directory",
        'inner=$(printf "100644 blob $(echo "[core]" | git hash-object -w --stdin)\\tconfig\\n" | git mktree) && ' +
          'tree=$(printf "040000 tree $inner\\t.git\\n" | git mktree) && ' +
          "git update-ref HEAD $(git -c user.name=x -c user.email=x@x commit-tree $tree -p HEAD -m planted)",
        /hasDotgit/,
      ],
      [
        "a commit whose committer has no email",
        'git update-ref HEAD $(printf "tree $(git rev-parse HEAD^{tree})\\nparent $(git rev-parse HEAD)\\n' +
          'author x <x@x> 1 +0000\\ncommitter nobody 1 +0000\\n\\nplanted\\n" | git hash-object -t commit -w --literally --stdin)',
        /missingEmail/,
      ],
    ];
    it.each(forgedCommits)(
      "a commit forged in the sandbox (%s) is refused; the host and its object store untouched",
      async (_name, shell, why) => {
        const repository = scratchRepository();
        const before = hostState(repository);
        const error = await failure(
          dispatch({ agent: agentWith({ SHELL: shell, FILE: "x.txt" }), brief: "x", repository, sandboxProvider: provider() }),
        );
        expect(error.code).toBe("workspace");
        expect(error.message).toMatch(/refused before the host was touched: its objects fail git's checks/);
        expect(error.message).toMatch(why);
        expect(
          hostState(repository)
            .refs.split("\n")
            .filter((line) => line.startsWith("refs/heads/main")),
        ).toEqual(before.refs.split("\n").filter((line) => line.startsWith("refs/heads/main")));
        expect(gitIn(repository, "fsck", "--strict", "--no-dangling")).toBe("");
        // The backup of refused work goes with it.
        const recovery = join(repository, ".outpost", "recovery");
        expect(existsSync(recovery) ? readdirSync(recovery) : []).toEqual([]);
      },
      120_000,
    );

    it.each(forgedCommits)(
      "a commit forged in the sandbox (%s) before a failed turn is not rescued: nothing unchecked is kept",
      async (_name, shell, why) => {
        const repository = scratchRepository();
        const warnings: string[] = [];
        const error = await failure(
          dispatch({
            agent: agentWith({ SHELL: shell, FILE: "x.txt", EXIT: "3" }),
            brief: "x",
            repository,
            sandboxProvider: provider(),
            warn: (message) => warnings.push(message),
          }),
        );
        expect(error.code).toBe("process");
        expect(error.message).not.toContain("rescued in");
        expect(warnings.join("\n")).toMatch(/could not be rescued: .*objects fail git's checks/);
        expect(warnings.join("\n")).toMatch(why);
        expect(gitIn(repository, "fsck", "--strict", "--no-dangling")).toBe("");
        const recovery = join(repository, ".outpost", "recovery");
        expect(existsSync(recovery) ? readdirSync(recovery) : []).toEqual([]);
      },
      120_000,
    );

    it("a work bundle over limits.bundleBytes is refused before it is downloaded, the host untouched", async () => {
      const repository = scratchRepository();
      const main = gitIn(repository, "rev-parse", "main");
      const error = await failure(
        dispatch({
          agent: agentWith({ SHELL: `head -c 300000 /dev/urandom > big.bin && ${commitAll}` }),
          brief: "x",
          repository,
          sandboxProvider: provider(),
          limits: { bundleBytes: 100_000 },
        }),
      );
      expect(error.code).toBe("workspace");
      expect(error.message).toMatch(/its bundle is \d+ bytes, over the limit of 100000 bytes \(limits.bundleBytes\)/);
      expect(gitIn(repository, "rev-parse", "main")).toBe(main);
      expect(existsSync(join(repository, "big.bin"))).toBe(false);
      // A sandbox that lies about the size is caught on the host, still before anything is applied.
      const shim = "mkdir -p /usr/local/bin && printf '#!/bin/sh\\necho 1\\n' > /usr/local/bin/wc && chmod +x /usr/local/bin/wc";
      const lied = await failure(
        dispatch({
          agent: agentWith({ SHELL: `${shim} && head -c 300000 /dev/urandom > big.bin && ${commitAll}` }),
          brief: "x",
          repository,
          sandboxProvider: provider(),
          limits: { bundleBytes: 100_000 },
        }),
      );
      expect(lied.code).toBe("workspace");
      expect(lied.message).toContain("over the limit of 100000 bytes");
      expect(gitIn(repository, "rev-parse", "main")).toBe(main);
    }, 120_000);

    it("a turn that fails after committing: the sandbox's commits are rescued into the recovery location", async () => {
      const repository = scratchRepository();
      const main = gitIn(repository, "rev-parse", "main");
      const error = await failure(
        dispatch({ agent: agentWith({ FILE: "rescued.txt", EXIT: "3" }), brief: "x", repository, sandboxProvider: provider() }),
      );
      expect(error.code).toBe("process");
      const recovery = error.details.recovery as { recoveryLocation: string; restore: string; phase: string };
      expect(recovery.phase).toBe("turns");
      expect(error.message).toContain(`rescued in ${recovery.recoveryLocation}`);
      expect(gitIn(repository, "rev-parse", "main")).toBe(main);
      gitIn(repository, ...recovery.restore.replace(/^git /, "").split(" "));
      const restored = gitIn(repository, "for-each-ref", "--format=%(refname:short)", "refs/heads/outpost-recovered-*");
      expect(gitIn(repository, "show", `${restored}:rescued.txt`)).toContain("script agent");
    }, 120_000);

    it("a release that fails while the host applies the work: the work still lands, the failure is reported and listed for clean", async () => {
      const repository = scratchRepository();
      const released: string[] = [];
      const real = provider();
      // The container really goes; the platform then reports a failure (as a flaky API would after deleting).
      const flaky: SandboxProvider = {
        ...real,
        acquire: async (context) => {
          const lease = await real.acquire(context);
          return new Proxy(lease, {
            get: (target, key, receiver) =>
              key === "release"
                ? async () => {
                    await target.release();
                    released.push("released");
                    throw new OutpostError("provider", "Could not confirm the release of the sandbox (injected).");
                  }
                : (Reflect.get(target, key, receiver) as unknown),
          });
        },
      };
      const error = await failure(dispatch({ agent: agentWith({ FILE: "landed.txt" }), brief: "x", repository, sandboxProvider: flaky }));
      expect(error.code).toBe("provider");
      expect(released).toEqual(["released"]);
      // Released in parallel with applying: the verified work is on the branch, not lost with the sandbox.
      expect(readFileSync(join(repository, "landed.txt"), "utf8")).toContain("script agent");
      const recovery = error.details.recovery as { phase: string; commits: string[] };
      expect(recovery.phase).toBe("close");
      expect(recovery.commits).toHaveLength(1);
      expect(gitIn(repository, "rev-parse", "main")).toBe(recovery.commits[0]);
      // Kept for `outpost clean`: the record names the failure.
      const records = readdirSync(join(repository, ".outpost", "storage", "activity")).filter((name) => name.endsWith(".json"));
      const record = JSON.parse(readFileSync(join(repository, ".outpost", "storage", "activity", records[0]!), "utf8")) as {
        state: string;
      };
      expect(record.state).toBe("failed");
    }, 120_000);

    it("a sandbox that rewrote history below the baseline is refused", async () => {
      const repository = scratchRepository();
      const main = gitIn(repository, "rev-parse", "main");
      const error = await failure(
        dispatch({
          agent: agentWith({ SHELL: "git -c user.name=x -c user.email=x@x commit --quiet --amend -m rewritten" }),
          brief: "x",
          repository,
          sandboxProvider: provider(),
        }),
      );
      expect(error.code).toBe("workspace");
      expect(error.message).toContain("does not descend from the baseline");
      expect(gitIn(repository, "rev-parse", "main")).toBe(main);
    }, 120_000);

    it("named: a host branch that moved during the run is a conflict; nothing applied, the work restorable from the backup", async () => {
      const repository = scratchRepository();
      let moved = "";
      const error = await interfered(repository, "feature/remote", () => {
        const tree = gitIn(repository, "rev-parse", "feature/remote^{tree}");
        moved = gitIn(repository, "commit-tree", tree, "-p", "feature/remote", "-m", "moved on the host");
        gitIn(repository, "update-ref", "refs/heads/feature/remote", moved);
      });
      expect(error.code).toBe("conflict");
      expect(gitIn(repository, "rev-parse", "feature/remote")).toBe(moved);
      const recovery = error.details.recoveryLocation as string;
      const manifest = JSON.parse(readFileSync(join(recovery, "manifest.json"), "utf8")) as { files: { path: string }[] };
      expect(manifest.files.map((file) => file.path)).toContain("work.bundle");
      expect(restoredRemoteFile(repository, recovery)).toContain("script agent");
    }, 120_000);

    it("named: a file the host made in the worktree during the run that the work would overwrite is a conflict; the branch stays", async () => {
      const repository = scratchRepository();
      const base = gitIn(repository, "rev-parse", "main");
      let planted = "";
      const error = await interfered(repository, "feature/files", () => {
        const workspaces = join(repository, ".outpost", "workspaces");
        planted = join(workspaces, readdirSync(workspaces)[0]!, "remote.txt");
        writeFileSync(planted, "the host's own remote.txt\n");
      });
      expect(error.code).toBe("conflict");
      expect(error.message).toContain("would be overwritten");
      // Moved by compare-and-swap, then back: the branch and the host's file are as the host left them.
      expect(gitIn(repository, "rev-parse", "feature/files")).toBe(base);
      expect(readFileSync(planted, "utf8")).toBe("the host's own remote.txt\n");
      expect(gitIn(repository, "for-each-ref", "refs/outpost/import")).toBe("");
      expect(restoredRemoteFile(repository, error.details.recoveryLocation as string)).toContain("script agent");
    }, 120_000);
  },
);

/** A one-entry ustar archive (a file holding "x\n", or a symbolic link), as a hostile sandbox's tar could write. */
function tarEntry(name: string, type: "0" | "2", target: string): Buffer {
  const body = type === "0" ? Buffer.from("x\n") : Buffer.alloc(0);
  const header = Buffer.alloc(512);
  header.write(name, 0, "utf8");
  header.write("0000644\0", 100, "latin1");
  header.write("0000000\0", 108, "latin1");
  header.write("0000000\0", 116, "latin1");
  header.write(`${body.length.toString(8).padStart(11, "0")}\0`, 124, "latin1");
  header.write("00000000000\0", 136, "latin1");
  header.fill(0x20, 148, 156);
  header.write(type, 156, "latin1");
  header.write(target, 157, "utf8");
  header.write("ustar\0" + "00", 257, "latin1");
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  const padded = Buffer.alloc(Math.ceil(body.length / 512) * 512);
  body.copy(padded);
  return Buffer.concat([header, padded, Buffer.alloc(1024)]);
}
