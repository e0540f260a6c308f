import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError, type FileManifestEntry, type SandboxLease } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";

let scratch: string;
let workspace: string;
let lease: SandboxLease;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "outpost-local-transfers-"));
  workspace = join(scratch, "workspace");
  await mkdir(workspace);
  lease = await localProvider({ home: "private" }).acquire({
    repository: workspace,
    directory: workspace,
    gitDirectories: [],
    variables: {},
  });
});

afterEach(async () => {
  await lease.release();
  await rm(scratch, { recursive: true, force: true });
});

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  return isOutpostError(outcome) ? outcome.code : `not an OutpostError: ${String(outcome)}`;
}

async function everyFile(directory: string): Promise<string[]> {
  return (await readdir(directory, { recursive: true })).map(String).sort();
}

describe("local transfers under hostile input", () => {
  it("refuses a tree holding a named pipe before writing anything", async () => {
    const tree = join(scratch, "tree");
    await mkdir(tree);
    await writeFile(join(tree, "a.txt"), "a");
    execFileSync("mkfifo", [join(tree, "pipe")]);
    expect(await code(lease.upload(tree, "landing"))).toBe("workspace");
    expect(await readdir(workspace)).toEqual([]);
  });

  it("refuses a source that is itself a symbolic link", async () => {
    await writeFile(join(workspace, "real.txt"), "real");
    await symlink("real.txt", join(workspace, "alias.txt"));
    expect(await code(lease.download("alias.txt", join(scratch, "out.txt")))).toBe("workspace");
  });

  it("keeps every file whole when two uploads race into the same destination, leaving no partial files", async () => {
    const versions = ["first", "second"];
    for (const version of versions) {
      for (let index = 0; index < 50; index++) {
        await mkdir(join(scratch, version, `d${index % 5}`), { recursive: true });
        await writeFile(join(scratch, version, `d${index % 5}`, `f${index}.txt`), `${version} ${index}\n`.repeat(2000));
      }
    }
    await Promise.all(versions.map((version) => lease.upload(join(scratch, version), "shared")));
    const files = (await everyFile(join(workspace, "shared"))).filter((path) => path.endsWith(".txt"));
    expect(files).toHaveLength(50);
    for (const path of files) {
      const text = await readFile(join(workspace, "shared", path), "utf8");
      const index = Number(/f(\d+)\.txt$/.exec(path)![1]);
      expect(versions.map((version) => `${version} ${index}\n`.repeat(2000))).toContain(text);
    }
    expect((await everyFile(join(workspace, "shared"))).filter((path) => path.includes(".partial"))).toEqual([]);
  });

  it("rejects corrupt manifest entries: empty path, unknown kind, wrong size", async () => {
    await writeFile(join(workspace, "file.txt"), "content");
    const [entry] = await lease.fileTransfers!.manifest(".", ["file.txt"]);
    const destination = join(scratch, "batch");
    const batch = (entries: FileManifestEntry[]) => lease.fileTransfers!.downloadBatch(".", entries, destination);
    expect(await code(batch([{ ...entry!, path: "" }]))).toBe("workspace");
    expect(await code(batch([{ ...entry!, kind: "directory" as never }]))).toBe("workspace");
    expect(await code(batch([{ ...entry!, size: entry!.size + 1 }]))).toBe("conflict");
    expect(await everyFile(destination).catch(() => [])).toEqual([]);
  });

  it("keeps only the retained tail of 16 MB of output", async () => {
    const result = await lease.invoke({
      executable: "sh",
      arguments: ["-c", "head -c 16777216 /dev/zero | tr '\\0' a; printf END"],
      retain: 1024,
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${"a".repeat(1021)}END`);
  });
});

describe("local failures are OutpostErrors", () => {
  it("a file upload onto an existing non-empty directory fails with code workspace", async () => {
    await mkdir(join(workspace, "occupied", "inner"), { recursive: true });
    await writeFile(join(scratch, "file.txt"), "x");
    expect(await code(lease.upload(join(scratch, "file.txt"), "occupied"))).toBe("workspace");
  });

  it("transfers on a root that was removed fail with code workspace", async () => {
    await writeFile(join(scratch, "file.txt"), "x");
    await rm(workspace, { recursive: true });
    expect(await code(lease.upload(join(scratch, "file.txt"), "file.txt"))).toBe("workspace");
    expect(await code(lease.download("file.txt", join(scratch, "back.txt")))).toBe("workspace");
    expect(await code(lease.fileTransfers!.manifest(".", ["."]))).toBe("workspace");
    expect(await code(lease.invoke({ executable: "true" }))).toBe("workspace");
  });
});

describe("local release", () => {
  it("stops background processes that a finished command left behind", async () => {
    const pidFile = join(workspace, "background.pid");
    const result = await lease.invoke({
      executable: "sh",
      arguments: ["-c", `sh -c 'echo $$ > "$1"; exec sleep 300' sh ${JSON.stringify(pidFile)} > /dev/null 2>&1 & sleep 0.2; echo started`],
    });
    expect(result.stdout).toBe("started\n");
    const pid = Number((await readFile(pidFile, "utf8")).trim());
    expect(alive(pid)).toBe(true);
    await lease.release();
    expect(alive(pid)).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    const text = execFileSync("cat", [`/proc/${pid}/stat`], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return text.slice(text.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
