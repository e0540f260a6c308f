import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isOutpostError, type SandboxLease } from "@outpost/core";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble, type VercelDouble } from "@outpost/provider-vercel/double";

// The sandbox and the host tree are both hostile: every class of escape must be refused before a write.
let double: VercelDouble;
let lease: SandboxLease;
let host: string;

beforeAll(async () => {
  double = await startVercelDouble();
  host = await mkdtemp(join(tmpdir(), "outpost-vercel-boundary-"));
  const worktree = join(host, "worktree");
  await mkdir(worktree);
  await writeFile(join(worktree, "README"), "hello\n");
  lease = await vercelProvider({ ...double.credentials, fetch: double.fetch }).acquire({
    repository: worktree,
    directory: worktree,
    gitDirectories: [],
    variables: {},
  });
}, 120_000);

afterAll(async () => {
  await lease?.release();
  await double?.close();
  if (host) await rm(host, { recursive: true, force: true });
});

async function sh(script: string): Promise<string> {
  const result = await lease.invoke({ executable: "/bin/sh", arguments: ["-c", script] });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

async function refusal(operation: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await operation.then(
    () => expect.fail("the operation was accepted"),
    (failure: unknown) => failure,
  );
  expect(isOutpostError(error), String(error)).toBe(true);
  return error as { code: string; message: string };
}

async function fresh(name: string): Promise<string> {
  const directory = join(host, name);
  await mkdir(directory, { recursive: true });
  return directory;
}

describe("vercel provider: hostile host trees", () => {
  it("refuses a symlinked source (directory or file) and a symlinked worktree, never following it", async () => {
    const real = await fresh("real");
    await writeFile(join(real, "secret"), "not for the sandbox\n");
    await symlink(real, join(host, "linked-dir"));
    await symlink(join(real, "secret"), join(host, "linked-file"));
    for (const source of ["linked-dir", "linked-file"]) {
      const error = await refusal(lease.upload(join(host, source), `in-${source}`));
      expect(error.code).toBe("workspace");
      expect(error.message).toMatch(/symbolic link/);
      expect(await sh(`[ -e in-${source} ] && echo present || echo absent`)).toBe("absent\n");
    }
    const provider = vercelProvider({ ...double.credentials, fetch: double.fetch });
    const before = double.sandboxes().length;
    const error = await refusal(
      provider.acquire({ repository: join(host, "linked-dir"), directory: join(host, "linked-dir"), gitDirectories: [], variables: {} }),
    );
    expect(error.code).toBe("workspace");
    expect(double.sandboxes().length).toBe(before);
  });

  it("refuses a link inside the tree that is absolute or climbs out, and a special file, before writing anything", async () => {
    const cases: [string, (tree: string) => Promise<void>][] = [
      ["absolute", (tree) => symlink("/etc", join(tree, "sub", "etc"))],
      ["climbing", (tree) => symlink("../../outside", join(tree, "sub", "up"))],
      ["climbing through a directory", (tree) => symlink("../sub/../../x", join(tree, "sub", "deep"))],
      ["fifo", async (tree) => void execFileSync("mkfifo", [join(tree, "sub", "pipe")])],
    ];
    for (const [index, [what, plant]] of cases.entries()) {
      const tree = await fresh(`tree-${index}`);
      await mkdir(join(tree, "sub"));
      await writeFile(join(tree, "a-first-file"), "x");
      await plant(tree);
      const error = await refusal(lease.upload(tree, `hostile-${index}`));
      expect(error.code, what).toBe("workspace");
      expect(await sh(`[ -e hostile-${index} ] && echo present || echo absent`), what).toBe("absent\n");
    }
  });

  it("carries hostile but legal names faithfully both ways and refuses a newline in a name", async () => {
    const names = ["-rf", "$(touch pwned)", "a b", `"q'uote`, "ü✓ ñ", "*", "back\\slash", "--", ".hidden", "semi;colon"];
    const tree = await fresh("names");
    for (const name of names) await writeFile(join(tree, name), `content of ${name}\n`);
    await lease.upload(tree, "names");
    expect((await sh("ls -A names | LC_ALL=C sort")).split("\n").filter(Boolean)).toEqual([...names].sort());
    const back = join(host, "names-back");
    await lease.download("names", back);
    for (const name of names) expect(await readFile(join(back, name), "utf8")).toBe(`content of ${name}\n`);
    // No name was ever run as shell: no file called plain "pwned" appeared where the scripts work.
    expect(await sh('ls -A / . names "$HOME" /tmp | grep -cx pwned || true')).toBe("0\n");
    expect(await readdir(host)).not.toContain("pwned");
    const newline = await fresh("newline");
    await writeFile(join(newline, "two\nlines"), "x");
    expect((await refusal(lease.upload(newline, "newline"))).code).toBe("workspace");
  });
});

describe("vercel provider: hostile sandbox trees", () => {
  it("refuses a download whose tree holds a link that is absolute or leaves it; the host destination stays untouched", async () => {
    for (const [index, target] of ["/etc", "../../..", "../ok/../../x"].entries()) {
      await sh(
        `rm -rf out-${index} && mkdir -p out-${index}/ok && echo data > out-${index}/ok/file && ln -s '${target}' out-${index}/ok/link`,
      );
      const destination = join(host, `from-sandbox-${index}`);
      const error = await refusal(lease.download(`out-${index}`, destination));
      expect(error.code, target).toBe("workspace");
      expect(await readdir(destination).catch(() => [])).toEqual([]);
    }
  });

  it("refuses to write through a host link on the way that leads out of the destination", async () => {
    const outside = await fresh("outside");
    const destination = await fresh("destination");
    await symlink(outside, join(destination, "sub"));
    await sh("rm -rf tree && mkdir -p tree/sub && echo planted > tree/sub/file");
    const error = await refusal(lease.download("tree", destination));
    expect(error.code).toBe("workspace");
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses sandbox paths reached through a link: manifest, download source and upload destination", async () => {
    await sh("rm -rf lk && mkdir lk && ln -s /etc lk/etc && ln -s .. lk/parent");
    const transfers = lease.fileTransfers!;
    for (const path of ["etc/hostname", "parent/README"]) {
      const error = await refusal(transfers.manifest("lk", [path]));
      expect(error.code, path).toBe("workspace");
      expect(error.message, path).toMatch(/reached through a link/);
    }
    const planted = await fresh("planted");
    await writeFile(join(planted, "passwd"), "owned\n");
    const error = await refusal(lease.upload(planted, "lk/etc"));
    expect(error.code).toBe("workspace");
    expect((await stat("/etc/passwd")).size).toBeGreaterThan(0);
    expect(await readFile("/etc/passwd", "utf8")).not.toBe("owned\n");
  });
});
