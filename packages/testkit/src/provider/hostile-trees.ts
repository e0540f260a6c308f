import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { isOutpostError, type SandboxLease } from "@outpost/core";
import { unsupportedTitle } from "../shared/suite-options.js";
import { vitestRunner, type SuiteRunner } from "../shared/suite-runner.js";
import type { ProviderSuiteContext, ProviderUnderTest } from "./provider-suite-context.js";

export interface DescribeHostileTreesOptions {
  readonly name: string;
  /** Called once; the suite acquires one lease and runs every case in it. */
  readonly create: () => Promise<ProviderUnderTest>;
  readonly runner?: SuiteRunner;
}

/** Legal names that a transfer must carry unchanged and never hand to a shell. */
export const HOSTILE_NAMES = ["-rf", "$(touch pwned)", "a b", `"q'uote`, "ü✓ ñ", "*", "back\\slash", "--", ".hidden", "semi;colon"];

/**
 * The hostile-trees cases on their own, for a provider outside `describeSandboxProvider` (which runs them
 * itself as its "hostile trees" group).
 */
export function describeHostileTrees(options: DescribeHostileTreesOptions): void {
  const runner = options.runner ?? vitestRunner;
  runner.describe(`hostile trees: ${options.name}`, () => {
    let subject: ProviderUnderTest | undefined;
    runner.beforeAll(async () => {
      subject = await options.create();
    }, 300_000);
    runner.afterAll(async () => {
      await subject?.dispose?.();
    }, 120_000);
    providerHostileTreeTests({
      runner,
      unsupported: {},
      provider: () => {
        if (subject === undefined) throw new Error(`The provider "${options.name}" was not created: its create() failed or has not run.`);
        return subject.provider;
      },
      context: async (directory) => contextFor(directory),
    });
  });
}

/**
 * The host tree and the sandbox tree are both hostile: a provider that moves files must refuse every way
 * out (a symlinked source, links that are absolute or climb out, special files, newline names, links in
 * the sandbox tree, a host link on the way to the destination, sandbox paths reached through a link)
 * before it writes anything, and carry hostile but legal names faithfully both ways. One lease serves
 * every case. `skip` names the reason the whole group is skipped (a platform that truly cannot).
 */
export function providerHostileTreeTests(context: ProviderSuiteContext, skip?: string): void {
  const runner = context.runner;
  if (skip !== undefined) {
    runner.it.skip(unsupportedTitle("hostile trees", skip));
    return;
  }
  let lease: SandboxLease | undefined;
  let host: string;
  const it = (title: string, body: (lease: SandboxLease) => Promise<void>) =>
    runner.it(
      title,
      () => {
        if (lease === undefined) throw new Error("The hostile-trees lease was not acquired: see the first failure.");
        return body(lease);
      },
      120_000,
    );

  runner.beforeAll(async () => {
    host = await mkdtemp(join(tmpdir(), "outpost-hostile-trees-"));
    await mkdir(join(host, "worktree"));
    await writeFile(join(host, "worktree", "README"), "hello\n");
    lease = await context.provider().acquire(await context.context(join(host, "worktree")));
  }, 120_000);
  runner.afterAll(async () => {
    await lease?.release();
    if (host) await rm(host, { recursive: true, force: true });
  }, 120_000);

  it("refuses a symlinked source (directory or file) and a symlinked worktree, never following it", async (lease) => {
    const real = await fresh(host, "real");
    await writeFile(join(real, "secret"), "not for the sandbox\n");
    await symlink(real, join(host, "linked-dir"));
    await symlink(join(real, "secret"), join(host, "linked-file"));
    for (const source of ["linked-dir", "linked-file"]) {
      const error = await refusal(lease.upload(join(host, source), `in-${source}`));
      assert.equal(error.code, "workspace", source);
      assert.match(error.message, /symbolic link/);
      assert.equal(await sh(lease, `[ -e in-${source} ] && echo present || echo absent`), "absent\n");
    }
    // A host placement runs in the worktree on the host itself: there is nothing a link could smuggle in.
    if (context.provider().placement === "host") return;
    const error = await refusal(acquireAndRelease(context, join(host, "linked-dir")));
    assert.equal(error.code, "workspace");
  });

  it("refuses a link inside the tree that is absolute or climbs out, and a special file, before writing anything", async (lease) => {
    const cases: [string, (tree: string) => Promise<void>][] = [
      ["absolute", (tree) => symlink("/etc", join(tree, "sub", "etc"))],
      ["climbing", (tree) => symlink("../../outside", join(tree, "sub", "up"))],
      ["climbing through a directory", (tree) => symlink("../sub/../../x", join(tree, "sub", "deep"))],
      ["fifo", async (tree) => void execFileSync("mkfifo", [join(tree, "sub", "pipe")])],
    ];
    for (const [index, [what, plant]] of cases.entries()) {
      const tree = await fresh(host, `tree-${index}`);
      await mkdir(join(tree, "sub"));
      await writeFile(join(tree, "a-first-file"), "x");
      await plant(tree);
      const error = await refusal(lease.upload(tree, `hostile-${index}`));
      assert.equal(error.code, "workspace", what);
      assert.equal(await sh(lease, `[ -e hostile-${index} ] && echo present || echo absent`), "absent\n", what);
    }
  });

  it("carries hostile but legal names faithfully both ways; a newline in a name is refused or carried exactly", async (lease) => {
    const tree = await fresh(host, "names");
    for (const name of HOSTILE_NAMES) await writeFile(join(tree, name), `content of ${name}\n`);
    await lease.upload(tree, "names");
    // The shell lists the names as bytes (busybox ls prints "?" for what its locale cannot show).
    const listing = await sh(lease, `cd names && for f in * .[!.]*; do [ -e "$f" ] && printf '%s\\n' "$f"; done`);
    assert.deepEqual(listing.split("\n").filter(Boolean).sort(), [...HOSTILE_NAMES].sort());
    const back = join(host, "names-back");
    await lease.download("names", back);
    for (const name of HOSTILE_NAMES) assert.equal(await readFile(join(back, name), "utf8"), `content of ${name}\n`, name);
    // No name was ever run as shell: no file called plain "pwned" appeared where the scripts work.
    assert.equal(await sh(lease, 'ls -A / . names "$HOME" /tmp | grep -cx pwned || true'), "0\n");
    assert.ok(!(await readdir(host)).includes("pwned"));
    // A newline in a name breaks line-based listings: refused (workspace), or carried exactly, never split.
    const newline = await fresh(host, "newline");
    await writeFile(join(newline, "two\nlines"), "x");
    const sent = await lease.upload(newline, "newline").then(
      () => undefined,
      (failure: unknown) => failure,
    );
    if (sent !== undefined) {
      assert.ok(isOutpostError(sent), String(sent));
      assert.equal(sent.code, "workspace");
      assert.equal(await sh(lease, "[ -e newline ] && ls -A newline | wc -l || echo 0"), "0\n");
    } else {
      assert.equal(
        await sh(
          lease,
          `cat 'newline/two
lines'`,
        ),
        "x",
      );
      assert.equal(await sh(lease, "cd newline && set -- * && echo $#"), "1\n");
    }
  });

  it("refuses a download whose tree holds a link that is absolute or leaves it; the host destination stays untouched", async (lease) => {
    for (const [index, target] of ["/etc", "../../..", "../ok/../../x"].entries()) {
      await sh(
        lease,
        `rm -rf out-${index} && mkdir -p out-${index}/ok && echo data > out-${index}/ok/file && ln -s '${target}' out-${index}/ok/link`,
      );
      const destination = join(host, `from-sandbox-${index}`);
      const error = await refusal(lease.download(`out-${index}`, destination));
      assert.equal(error.code, "workspace", target);
      assert.deepEqual(await readdir(destination).catch(() => []), [], target);
    }
  });

  it("refuses to write through a host link on the way that leads out of the destination", async (lease) => {
    const outside = await fresh(host, "outside");
    const destination = await fresh(host, "destination");
    await symlink(outside, join(destination, "sub"));
    await sh(lease, "rm -rf tree && mkdir -p tree/sub && echo planted > tree/sub/file");
    const error = await refusal(lease.download("tree", destination));
    assert.equal(error.code, "workspace");
    assert.deepEqual(await readdir(outside), []);
  });

  it("refuses sandbox paths reached through a link: manifest and upload destination", async (lease) => {
    await sh(lease, "rm -rf lk && mkdir lk && ln -s /etc lk/etc && ln -s .. lk/parent");
    if (lease.fileTransfers !== undefined) {
      for (const path of ["etc/hostname", "parent/README"]) {
        const error = await refusal(lease.fileTransfers.manifest("lk", [path]));
        assert.equal(error.code, "workspace", path);
        assert.match(error.message, /link/, path);
      }
    }
    const planted = await fresh(host, "planted");
    await writeFile(join(planted, "passwd"), "owned\n");
    const error = await refusal(lease.upload(planted, "lk/etc"));
    assert.equal(error.code, "workspace");
    assert.notEqual(await sh(lease, "cat /etc/passwd"), "owned\n");
  });
}

function contextFor(directory: string) {
  return { repository: directory, directory, gitDirectories: [], variables: {} };
}

async function acquireAndRelease(context: ProviderSuiteContext, directory: string): Promise<void> {
  const lease = await context.provider().acquire(await context.context(directory));
  await lease.release();
}

async function sh(lease: SandboxLease, script: string): Promise<string> {
  const result = await lease.invoke({ executable: "/bin/sh", arguments: ["-c", script] });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

async function refusal(operation: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await operation.then(
    () => assert.fail("the operation was accepted"),
    (failure: unknown) => failure,
  );
  assert.ok(isOutpostError(error), String(error));
  return error;
}

async function fresh(host: string, name: string): Promise<string> {
  const directory = join(host, name);
  await mkdir(directory, { recursive: true });
  return directory;
}
