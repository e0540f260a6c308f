import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gunzipSync, gzipSync } from "node:zlib";
import type { Command, SandboxProvider, TransferOptions } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { isolatedDocker } from "./support/isolated-docker.js";

const gate = dockerGate();
const { provider, agentWith } = isolatedDocker();
/** The same sandboxes, but leases without `fileTransfers`: files come back one by one through download(). */
const withoutFileTransfers = (inner: SandboxProvider): SandboxProvider => ({
  ...inner,
  capabilities: { ...inner.capabilities, fileTransfers: false, liveInput: inner.capabilities?.liveInput ?? false },
  acquire: async (options) => {
    const lease = await inner.acquire(options);
    return new Proxy(lease, {
      get: (target, key) => {
        if (key === "fileTransfers") return undefined;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  },
});
/** Leases whose download() writes altered bytes (same size): what a corrupting transport would deliver. */
const alteringDownloads = (inner: SandboxProvider): SandboxProvider => ({
  ...inner,
  acquire: async (options) => {
    const lease = await inner.acquire(options);
    const download = lease.download.bind(lease);
    return Object.assign(lease, {
      download: async (source: string, destination: string, transfer?: TransferOptions) => {
        await download(source, destination, transfer);
        if (source.endsWith("/altered.txt")) writeFileSync(destination, "the fake bytes\n");
      },
    });
  },
});
/** Leases whose sync-back listing output carries an altered inline archive of altered.txt (same size, other bytes). */
const alteringInlineArchive = (inner: SandboxProvider): SandboxProvider => ({
  ...inner,
  acquire: async (options) => {
    const lease = await inner.acquire(options);
    const invoke = lease.invoke.bind(lease);
    return Object.assign(lease, {
      invoke: async (command: Command) => {
        const result = await invoke(command);
        if (command.arguments?.[2] !== "outpost-sync-back" || !result.stdout.includes("@@changed.tar")) return result;
        return { ...result, stdout: alterInlineTar(result.stdout) };
      },
    });
  },
});
/** Rewrites the inline `@@changed.tar` or `@@changed.tar.gz` section so that altered.txt's bytes differ (same length). */
function alterInlineTar(stdout: string): string {
  return stdout.replace(
    /(\n@@changed\.tar(\.gz)?\n)([A-Za-z0-9+/=\n]+)/,
    (_match, header: string, zipped: string | undefined, body: string) => {
      const bytes = Buffer.from(body.replace(/\n/g, ""), "base64");
      const plain = zipped ? gunzipSync(bytes) : bytes;
      const altered = Buffer.from(plain.toString("latin1").replace("the real bytes", "the fake bytes"), "latin1");
      const encoded = (zipped ? gzipSync(altered) : altered).toString("base64");
      return `${header}${encoded}\n`;
    },
  );
}
const failure = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error("the dispatch succeeded");
    },
    (caught: unknown) => caught as { code: string; message: string; details: Record<string, unknown> },
  );
// One committed file, then uncommitted: a tracked file changed, one deleted, new files (nested, executable, two hard-linked).
const LEAVE_CHANGES = [
  "echo committed > committed.txt && git add committed.txt && git commit --quiet -m committed",
  "echo changed >> README.md",
  "rm -f gone.txt",
  "mkdir -p nested/deeper && echo new > nested/deeper/new.txt",
  "printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod 755 run.sh",
  "echo shared > twin-a.txt && ln twin-a.txt twin-b.txt",
].join(" && ");
/** A repository with `gone.txt` committed, for the agent to delete. */
const repositoryWithGone = () => {
  const repository = scratchRepository();
  writeFileSync(join(repository, "gone.txt"), "to delete\n");
  gitIn(repository, "add", "gone.txt");
  gitIn(repository, "commit", "--quiet", "-m", "gone.txt");
  return repository;
};

/** 1.5 MB that gzip cannot shrink: too much to come inline with the listing, so the files are downloaded. */
const TOO_LARGE_TO_INLINE = "head -c 1500000 /dev/urandom > large.bin";

async function bringsChangesBack(sandboxProvider: SandboxProvider, expected: string, extra?: string): Promise<void> {
  const repository = repositoryWithGone();
  const diagnostics: string[] = [];
  const result = await dispatch({
    agent: agentWith({ SHELL: extra === undefined ? LEAVE_CHANGES : `${LEAVE_CHANGES} && ${extra}` }),
    brief: "x",
    repository,
    sandboxProvider,
    branch: { mode: "named", name: "feature" },
    diagnostic: (message) => diagnostics.push(message),
  });
  expect(result.commits).toHaveLength(1);
  const worktree = result.directory;
  expect(readFileSync(join(worktree, "committed.txt"), "utf8")).toBe("committed\n");
  expect(readFileSync(join(worktree, "README.md"), "utf8")).toMatch(/^# scratch\n.*changed\n$/s);
  expect(existsSync(join(worktree, "gone.txt"))).toBe(false);
  expect(readFileSync(join(worktree, "nested/deeper/new.txt"), "utf8")).toBe("new\n");
  expect(lstatSync(join(worktree, "run.sh")).mode & 0o777).toBe(0o755);
  // Hard links come back as independent regular files.
  expect(readFileSync(join(worktree, "twin-b.txt"), "utf8")).toBe("shared\n");
  expect(lstatSync(join(worktree, "twin-b.txt")).nlink).toBe(1);
  if (extra !== undefined) expect(statSync(join(worktree, "large.bin")).size).toBe(1_500_000);
  expect(result.workspaceKept).toBe(true);
  expect(diagnostics.find((message) => message.startsWith("syncBack: ") && message.includes("brought back"))).toContain(expected);
  // Nothing staged is left beside the worktree.
  expect(readdirSync(join(worktree, "..")).filter((name) => name.startsWith(".outpost-"))).toEqual([]);
}

(gate.unavailable ? describe.skip : describe)(
  `uncommitted files come back from Docker isolated${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("inline with the listing when small: changed, new, deleted, executable and hard-linked files land in the host worktree", async () => {
      await bringsChangesBack(provider(), "inline archive");
    }, 120_000);

    it("through fileTransfers when too large to come inline", async () => {
      await bringsChangesBack(provider(), "fileTransfers", TOO_LARGE_TO_INLINE);
    }, 120_000);

    // Page 002: without fileTransfers, files pass one by one through download(), small or large.
    it("one by one through download() when the lease has no fileTransfers, small or large", async () => {
      await bringsChangesBack(withoutFileTransfers(provider()), "one by one");
      await bringsChangesBack(withoutFileTransfers(provider()), "one by one", TOO_LARGE_TO_INLINE);
    }, 240_000);

    it("a file altered on its way back fails the manifest's SHA-256 check, by name, whichever way it came; the host is untouched", async () => {
      for (const [way, sandboxProvider] of [
        ["one by one", withoutFileTransfers(alteringDownloads(provider()))],
        ["inline archive", alteringInlineArchive(provider())],
      ] as const) {
        const repository = scratchRepository();
        const error = await failure(
          dispatch({
            agent: agentWith({ SHELL: "echo 'the real bytes' > altered.txt" }),
            brief: "x",
            repository,
            sandboxProvider,
            branch: { mode: "named", name: "feature" },
          }),
        );
        expect(error.code, way).toBe("workspace");
        expect(error.message, way).toContain('"altered.txt"');
        expect(error.message, way).toContain("SHA-256");
        expect(existsSync(join(repository, "altered.txt")), way).toBe(false);
      }
    }, 240_000);

    it("a hostile sandbox: links out, special files, traversal and .git names, a link planted on the way are refused; host untouched", async () => {
      const outside = mkdtempSync(join(tmpdir(), "outpost-outside-"));
      // A fake git that reports what the test wants for `status` (the sandbox controls its binaries).
      const fakeStatus = (records: string) =>
        [
          "mkdir -p /tmp/fake",
          `printf '#!/bin/sh\\nfor a in "$@"; do [ "$a" = status ] && { printf '"'"'${records}'"'"'; exit 0; }; done\\nexec /usr/bin/git "$@"\\n' > /tmp/fake/git`,
          "chmod 755 /tmp/fake/git && cp /tmp/fake/git /usr/local/bin/git",
        ].join(" && ");
      const cases: Array<{ name: string; shell: string; expected: RegExp }> = [
        { name: "absolute link", shell: "ln -s /etc/passwd leak", expected: /leak/ },
        { name: "link leaving the tree", shell: "ln -s ../../../../etc escape", expected: /escape/ },
        { name: "traversal name", shell: `touch x && ${fakeStatus("?? ../../escaped\\\\0")}`, expected: /\.\.\/\.\.\/escaped/ },
        { name: "absolute name", shell: `${fakeStatus("?? /etc/evil\\\\0")}`, expected: /\/etc\/evil/ },
        { name: ".git name", shell: `${fakeStatus("?? sub/.git/hooks/post-checkout\\\\0")}`, expected: /\.git/ },
        {
          name: "a directory reported as a file",
          shell: `mkdir -p dir/inner && touch dir/inner/f && ${fakeStatus("?? dir\\\\0")}`,
          expected: /dir/,
        },
        { name: "a special file", shell: `mkfifo pipe && ${fakeStatus("?? pipe\\\\0")}`, expected: /pipe/ },
        {
          name: "a committed link on the way",
          shell: `ln -s ${outside} out && git add out && git commit --quiet -m link && ${fakeStatus("?? out/payload\\\\0")}`,
          expected: /out\/payload/,
        },
      ];
      for (const { name, shell, expected } of cases) {
        const repository = scratchRepository();
        const main = gitIn(repository, "rev-parse", "main");
        const error = await failure(dispatch({ agent: agentWith({ SHELL: shell }), brief: "x", repository, sandboxProvider: provider() }));
        expect(error.code, name).toBe("workspace");
        expect(error.message, name).toMatch(expected);
        expect(gitIn(repository, "status", "--porcelain", "--untracked-files=all"), name).toBe("");
        if (name !== "a committed link on the way") expect(gitIn(repository, "rev-parse", "main"), name).toBe(main);
      }
      expect(readdirSync(outside)).toEqual([]);
      expect(existsSync(join(tmpdir(), "escaped"))).toBe(false);
    }, 600_000);
  },
);
