import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionBundleProfile } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { sessionBundleStore } from "../src/index.js";
import { bucketedProfile, demoProfile } from "./demo-profile.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";

async function writeSession(folder: string, workspace: string, home: string): Promise<void> {
  await mkdir(join(folder, "notes"), { recursive: true });
  await writeFile(join(folder, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd: workspace })}\n`);
  await writeFile(
    join(folder, "log.jsonl"),
    `${JSON.stringify({ type: "tool", path: `${workspace}/hello.txt`, other: `${workspace}ository/x`, skills: `${home}/.demo/skills` })}\n{"type":"text","text":"hi"}\n`,
  );
  await writeFile(join(folder, "blob.bin"), Buffer.from([0, 255, 1, 254, 0x2f, 0x77]));
  await writeFile(join(folder, "notes", "readme.md"), `see ${workspace}/src\n`);
  await writeFile(join(folder, "session.lock"), "pid 1");
  await chmod(join(folder, "log.jsonl"), 0o600);
}

async function expectCode(promise: Promise<unknown>, code: string, text?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isOutpostError(error), `expected an OutpostError, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe(code);
  if (text) expect((error as Error).message).toMatch(text);
}

describe("sessionBundleStore through the local provider", () => {
  let source: TestSandbox;
  let target: TestSandbox;
  const store = sessionBundleStore(demoProfile);
  const sessionOf = (sandbox: TestSandbox) => join(sandbox.lease.home, ".demo", "sessions", ID);

  beforeEach(async () => {
    source = await localSandbox("repo");
    target = await localSandbox("repository");
    await writeSession(sessionOf(source), source.lease.root, source.lease.home);
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
  });

  it("captures one bundle file and restores it into another home and workspace", async () => {
    const record = await store.capture(ID, source.context());
    expect(record).toEqual({ id: ID, format: "demo", file: join(source.workspace, ".outpost", "conversations", "demo", `${ID}.json`) });
    const bundle = JSON.parse(await readFile(record.file, "utf8")) as { files: { path: string }[] };
    expect(bundle.files.map((file) => file.path).sort()).toEqual(["blob.bin", "log.jsonl", "notes/readme.md", "state.json"]);

    const located = await store.locate(ID, source.workspace);
    await store.restore(located, target.context());
    const restored = sessionOf(target);
    expect(store.destination(ID, target.lease, record.file)).toBe(restored);
    expect((await readdir(restored)).sort()).toEqual(["blob.bin", "log.jsonl", "notes", "state.json"]);
    expect(JSON.parse(await readFile(join(restored, "state.json"), "utf8"))).toEqual({
      version: 2,
      id: ID,
      cwd: target.lease.root,
      restoredFrom: source.lease.root,
    });
    const log = JSON.parse((await readFile(join(restored, "log.jsonl"), "utf8")).split("\n")[0]!) as Record<string, string>;
    expect(log.path).toBe(`${target.lease.root}/hello.txt`);
    expect(log.other).toBe(`${source.lease.root}ository/x`);
    expect(log.skills).toBe(`${target.lease.home}/.demo/skills`);
    expect(await readFile(join(restored, "notes", "readme.md"), "utf8")).toBe(`see ${target.lease.root}/src\n`);
    expect([...(await readFile(join(restored, "blob.bin")))]).toEqual([0, 255, 1, 254, 0x2f, 0x77]);
    expect((await stat(join(restored, "log.jsonl"))).mode & 0o777).toBe(0o600);
    const leftovers = await readdir(join(target.lease.home, ".demo", "sessions"));
    expect(leftovers).toEqual([ID]);
  });

  it("honours the CLI home variable in the sandbox, also in-process for a local context", async () => {
    const cliHome = await mkdtemp(join(tmpdir(), "outpost-demo-cli-"));
    const custom = await localSandbox("repo", { DEMO_CLI_HOME: cliHome });
    try {
      await writeSession(join(cliHome, "sessions", ID), custom.lease.root, custom.lease.home);
      const record = await store.capture(ID, custom.context());
      await store.restore(record, target.context());
      expect(JSON.parse(await readFile(join(sessionOf(target), "state.json"), "utf8")).cwd).toBe(target.lease.root);
      const local = await store.capture(ID, { ...custom.context(), local: true });
      expect(JSON.parse(await readFile(local.file, "utf8")).files).toHaveLength(4);
      await rm(join(cliHome, "sessions"), { recursive: true });
      await store.restore(record, { ...custom.context(), local: true });
      expect(JSON.parse(await readFile(join(cliHome, "sessions", ID, "state.json"), "utf8")).cwd).toBe(custom.lease.root);
    } finally {
      await custom.dispose();
      await rm(cliHome, { recursive: true, force: true });
    }
  });

  it("gives the same result in-process when the context is local (host placement)", async () => {
    const record = await store.capture(ID, { ...source.context(), local: true });
    await store.restore(record, { ...target.context(), local: true });
    expect(JSON.parse(await readFile(join(sessionOf(target), "state.json"), "utf8"))).toEqual({
      version: 2,
      id: ID,
      cwd: target.lease.root,
      restoredFrom: source.lease.root,
    });
    // A live home keeps the session it holds: the leaky hook runs only once it is gone.
    await rm(sessionOf(target), { recursive: true });
    const leaky = sessionBundleStore({ ...demoProfile, relocate: (_path, text) => text + String(ID) });
    await expectCode(leaky.restore(record, { ...target.context(), local: true }), "configuration", /not self-contained: ID is not defined/);
    await symlink("/etc/passwd", join(sessionOf(source), "notes", "passwd"));
    await expectCode(store.capture(ID, { ...source.context(), local: true }), "workspace", /symbolic link/);
  });

  it("replaces an existing session atomically and leaves no staging folder", async () => {
    const record = await store.capture(ID, source.context());
    await writeSession(sessionOf(target), "/old", "/old-home");
    await store.restore(record, target.context());
    expect(JSON.parse(await readFile(join(sessionOf(target), "state.json"), "utf8")).cwd).toBe(target.lease.root);
    expect(await readdir(join(target.lease.home, ".demo", "sessions"))).toEqual([ID]);
    expect(await readdir(target.lease.home)).not.toContain(".outpost-staging");
  });

  it("two concurrent restores of the same session leave one complete session", async () => {
    const record = await store.capture(ID, source.context());
    const results = await Promise.allSettled([1, 2, 3].map(() => store.restore(record, target.context())));
    for (const result of results) {
      if (result.status === "rejected") expect(isOutpostError(result.reason), String(result.reason)).toBe(true);
    }
    expect(results.some((result) => result.status === "fulfilled")).toBe(true);
    expect((await readdir(sessionOf(target))).sort()).toEqual(["blob.bin", "log.jsonl", "notes", "state.json"]);
    expect(await readdir(join(target.lease.home, ".demo", "sessions"))).toEqual([ID]);
  });

  describe("hostile input is refused with an OutpostError and the existing session untouched", () => {
    it("a symbolic link in the session folder", async () => {
      await symlink("/etc/passwd", join(sessionOf(source), "notes", "passwd"));
      await expectCode(store.capture(ID, source.context()), "workspace", /symbolic link/);
    });

    it("a .git entry", async () => {
      await mkdir(join(sessionOf(source), ".git"));
      await expectCode(store.capture(ID, source.context()), "workspace", /\.git/);
    });

    it("more files or more bytes than the limits", async () => {
      await expectCode(sessionBundleStore(demoProfile, { maxFiles: 3 }).capture(ID, source.context()), "limit", /more than 3 files/);
      await expectCode(sessionBundleStore(demoProfile, { maxBytes: 100 }).capture(ID, source.context()), "limit", /more than 100 bytes/);
    });

    it("a file that grows while it is captured", async () => {
      const log = join(sessionOf(source), "log.jsonl");
      await writeFile(log, `${"x".repeat(1024)}\n`.repeat(8 * 1024));
      const writer = spawn(process.execPath, ["-e", `const fs=require("fs");for(;;){fs.appendFileSync(${JSON.stringify(log)},"{}\\n")}`], {
        stdio: "ignore",
      });
      try {
        const initial = (await stat(log)).size;
        while ((await stat(log)).size === initial) await new Promise((resolve) => setTimeout(resolve, 5));
        // On a loaded machine the writer can be descheduled for a whole capture; a capture of a file that did
        // not change is right, so try until one overlaps a write: that one must be refused.
        let refused: unknown;
        for (let attempt = 0; attempt < 20 && refused === undefined; attempt += 1) {
          refused = await store.capture(ID, source.context()).then(
            () => undefined,
            (error: unknown) => error,
          );
        }
        await expectCode(Promise.reject(refused), "session", /changed while it was being read/);
      } finally {
        writer.kill("SIGKILL");
      }
    });

    it("a missing required file", async () => {
      await writeFile(join(sessionOf(source), "log.jsonl"), "");
      await rm(join(sessionOf(source), "log.jsonl"));
      await expectCode(store.capture(ID, source.context()), "session", /incomplete, log\.jsonl missing/);
    });

    it("validate returning an error, at capture and when a bundle is located", async () => {
      await writeFile(join(sessionOf(source), "state.json"), `{"version":3}`);
      await expectCode(store.capture(ID, source.context()), "session", /state\.json version 3 is not supported/);
      const record = await sessionBundleStore({ ...demoProfile, validate: undefined }).capture(ID, source.context());
      await expectCode(store.locate(ID, source.workspace), "session", /version 3 is not supported/);
      expect(record.file).toContain(ID);
    });

    it("corrupt bundle JSON, `..` and absolute paths in a bundle", async () => {
      const record = await store.capture(ID, source.context());
      await writeSession(sessionOf(target), "/old", "/old-home");
      const before = await readFile(join(sessionOf(target), "state.json"), "utf8");
      const original = await readFile(record.file, "utf8");
      await writeFile(record.file, original.slice(0, 40));
      await expectCode(store.locate(ID, source.workspace), "session", /corrupt/);
      await expectCode(store.restore(record, target.context()), "session", /corrupt/);
      for (const path of ["../escape.json", "/etc/cron.d/x", "notes/../../x", "notes/.git"]) {
        const bundle = JSON.parse(original) as { files: { path: string }[] };
        bundle.files[0]!.path = path;
        await writeFile(record.file, JSON.stringify(bundle));
        await expectCode(store.restore(record, target.context()), "session", /unusable/);
      }
      expect(await readFile(join(sessionOf(target), "state.json"), "utf8")).toBe(before);
    });

    it("a throwing relocate keeps the existing session", async () => {
      const throwing = sessionBundleStore({
        ...demoProfile,
        relocate: (path, text) => {
          if (path === "log.jsonl") throw new Error("cannot parse the log");
          return text;
        },
      });
      const record = await throwing.capture(ID, source.context());
      await writeSession(sessionOf(target), "/old", "/old-home");
      const before = await readFile(join(sessionOf(target), "log.jsonl"), "utf8");
      await expectCode(throwing.restore(record, target.context()), "session", /relocate hook .* threw: cannot parse the log/);
      expect(await readFile(join(sessionOf(target), "log.jsonl"), "utf8")).toBe(before);
      expect(await readdir(join(target.lease.home, ".demo", "sessions"))).toEqual([ID]);
    });

    it("a hook that reaches for an outer variable fails clearly", async () => {
      const outer = "/somewhere";
      const leaky = sessionBundleStore({ ...demoProfile, relocate: (_path, text) => text.replaceAll("x", outer) });
      const record = await leaky.capture(ID, source.context());
      await expectCode(leaky.restore(record, target.context()), "configuration", /not self-contained: outer is not defined/);
      const leakyValidate = sessionBundleStore({ ...demoProfile, validate: () => (outer ? undefined : "never") });
      await expectCode(leakyValidate.capture(ID, source.context()), "configuration", /validate hook .* not self-contained/);
      await expectCode(leakyValidate.locate(ID, source.workspace), "configuration", /not self-contained/);
    });

    it("a g-, y- or m-flagged include, and other broken profiles", () => {
      const broken: Partial<SessionBundleProfile>[] = [
        { include: /state/g },
        { include: /state/y },
        { exclude: /lock/g },
        { exclude: /^logs$/m },
        { required: [] },
        { required: ["../state.json"] },
        { buckets: true, bucket: undefined },
        { sessions: "../elsewhere" },
        { validate: Math.max as never },
      ];
      for (const change of broken) {
        let error: unknown;
        try {
          sessionBundleStore({ ...demoProfile, ...change });
        } catch (caught) {
          error = caught;
        }
        expect(isOutpostError(error, "configuration"), JSON.stringify(Object.keys(change))).toBe(true);
      }
    });

    it("an unsafe conversation id", async () => {
      for (const id of ["../x", "a/b", "", ".."])
        await expectCode(store.capture(id, source.context()), "session", /Refused conversation id/);
    });
  });
});

describe("sessionBundleStore with buckets", () => {
  let source: TestSandbox;
  let target: TestSandbox;
  const store = sessionBundleStore(bucketedProfile);
  const sessions = (sandbox: TestSandbox) => join(sandbox.lease.home, ".demo", "sessions");

  beforeEach(async () => {
    source = await localSandbox("repo");
    target = await localSandbox("other");
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
  });

  it("captures from the one bucket holding the id and restores into the workspace's bucket", async () => {
    await writeSession(join(sessions(source), "wd_repo_abc", ID), source.lease.root, source.lease.home);
    const record = await store.capture(ID, source.context());
    expect(JSON.parse(await readFile(record.file, "utf8")).bucket).toBe("wd_repo_abc");
    await store.restore(record, target.context());
    const destination = store.destination(ID, target.lease, record.file);
    expect(destination.startsWith(`${sessions(target)}/wd_other_`)).toBe(true);
    expect(JSON.parse(await readFile(join(destination, "state.json"), "utf8")).cwd).toBe(target.lease.root);
  });

  it("with the id in several buckets (one home, several workspaces): the workspace's, else the one written last; a tie asks for another turn", async () => {
    const own = store.destination(ID, source.lease, "").split("/").slice(-2)[0]!;
    await writeSession(join(sessions(source), own, ID), source.lease.root, source.lease.home);
    await writeSession(join(sessions(source), "wd_b", ID), source.lease.root, source.lease.home);
    const written = (bucket: string, at: number) => utimes(join(sessions(source), bucket, ID, "state.json"), new Date(at), new Date(at));
    await written(own, 1_000_000);
    await written("wd_b", 2_000_000);
    expect(JSON.parse(await readFile((await store.capture(ID, source.context())).file, "utf8")).bucket).toBe(own);
    await rm(join(sessions(source), own), { recursive: true });
    await writeSession(join(sessions(source), "wd_a", ID), source.lease.root, source.lease.home);
    await written("wd_a", 3_000_000);
    expect(JSON.parse(await readFile((await store.capture(ID, source.context())).file, "utf8")).bucket).toBe("wd_a");
    await written("wd_b", 3_000_000);
    const tie = await store.capture(ID, source.context()).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(tie?.message).toMatch(/in 2 buckets \(wd_a, wd_b\) written at the same moment.*Run the turn again/);
    expect(tie?.message).not.toMatch(/Remove/);
  });

  it("restores beside a copy under another bucket (another workspace on the same home), leaving it untouched", async () => {
    await writeSession(join(sessions(source), "wd_repo_abc", ID), source.lease.root, source.lease.home);
    const record = await store.capture(ID, source.context());
    await writeSession(join(sessions(target), "wd_elsewhere", ID), "/old", "/old-home");
    await store.restore(record, target.context());
    expect(await readdir(sessions(target))).toHaveLength(2);
    expect(JSON.parse(await readFile(join(sessions(target), "wd_elsewhere", ID, "state.json"), "utf8")).cwd).toBe("/old");
    expect(JSON.parse(await readFile(join(store.destination(ID, target.lease, record.file), "state.json"), "utf8")).cwd).toBe(
      target.lease.root,
    );
  });
});
