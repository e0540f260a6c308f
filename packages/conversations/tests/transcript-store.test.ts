import { spawn } from "node:child_process";
import { mkdir, readFile, readdir, symlink, utimes, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { transcriptStore } from "../src/index.js";
import { demoTranscript, transcriptLine } from "./demo-transcript.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "0716f583-aaaa-4bbb-8ccc-0123456789ab";

async function expectCode(promise: Promise<unknown>, code: string, text?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isOutpostError(error), `expected an OutpostError, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe(code);
  if (text) expect((error as Error).message).toMatch(text);
}

describe("transcriptStore through the local provider", () => {
  let source: TestSandbox;
  let target: TestSandbox;
  const store = transcriptStore(demoTranscript);
  const folderOf = (sandbox: TestSandbox) => join(sandbox.lease.home, ".demo-transcript", "sessions", "repo");
  const transcriptOf = (sandbox: TestSandbox) => join(folderOf(sandbox), `${ID}.jsonl`);
  let original: string;

  beforeEach(async () => {
    source = await localSandbox("repo");
    target = await localSandbox("project");
    await mkdir(join(folderOf(source), ID, "subagents"), { recursive: true });
    original = Array.from({ length: 50 }, (_, index) => transcriptLine(index, source.lease.root, source.lease.home)).join("");
    await writeFile(transcriptOf(source), original, { mode: 0o600 });
    await writeFile(join(folderOf(source), ID, "subagents", "agent-1.jsonl"), transcriptLine(0, source.lease.root, source.lease.home));
    await writeFile(join(folderOf(source), ID, "subagents", "blob.bin"), Buffer.from([0xff, 0xfe, 0x00]));
    await writeFile(join(folderOf(source), "other-session.jsonl"), "not captured");
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
  });

  it("captures the transcript and its sidecar, and restores them relocated with every other byte intact", async () => {
    const record = await store.capture(ID, source.context());
    expect(record.file).toBe(join(source.workspace, ".outpost", "conversations", "demo-transcript", ID, "files", "repo", `${ID}.jsonl`));
    expect(await store.locate(ID, source.workspace)).toEqual(record);
    await store.restore(record, target.context());
    const destination = join(target.lease.home, ".demo-transcript", "sessions", "project", `${ID}.jsonl`);
    expect(store.destination(ID, target.lease, record.file)).toBe(destination);
    // `<workspace>ository` only shares a prefix with the workspace: it must survive untouched.
    const keep = `${source.lease.root}ository`;
    const expected = original
      .split(keep)
      .join("\u0000")
      .split(source.lease.root)
      .join(target.lease.root)
      .split(source.lease.home)
      .join(target.lease.home)
      .split("\u0000")
      .join(keep);
    expect(await readFile(destination, "utf8")).toBe(expected);
    expect(expected).toContain(`not ${keep}"`);
    expect(
      await readFile(join(target.lease.home, ".demo-transcript", "sessions", "project", ID, "subagents", "agent-1.jsonl"), "utf8"),
    ).toBe(transcriptLine(0, target.lease.root, target.lease.home).replace(`${target.lease.root}ository`, keep));
    expect([...(await readFile(join(target.lease.home, ".demo-transcript", "sessions", "project", ID, "subagents", "blob.bin")))]).toEqual([
      0xff, 0xfe, 0x00,
    ]);
    expect((await readdir(join(target.lease.home, ".demo-transcript", "sessions"))).sort()).toEqual(["project"]);
    expect((await readdir(join(target.lease.home, ".demo-transcript", "sessions", "project"))).sort()).toEqual([ID, `${ID}.jsonl`]);
  });

  it("gives byte-identical results in-process when the context is local (host placement)", async () => {
    const remote = await store.capture(ID, source.context());
    await store.restore(remote, target.context());
    const destination = join(target.lease.home, ".demo-transcript", "sessions", "project", `${ID}.jsonl`);
    const viaScripts = await readFile(destination, "utf8");
    const local = await store.capture(ID, { ...source.context(join(source.base, "local-host")), local: true });
    await store.restore(local, { ...target.context(), local: true });
    expect(await readFile(destination, "utf8")).toBe(viaScripts);
    expect((await readdir(join(target.lease.home, ".demo-transcript", "sessions", "project"))).sort()).toEqual([ID, `${ID}.jsonl`]);
  });

  it("replaces an existing transcript in place on a second restore", async () => {
    const record = await store.capture(ID, source.context());
    await store.restore(record, target.context());
    await store.restore(record, target.context());
    expect((await readdir(join(target.lease.home, ".demo-transcript", "sessions", "project"))).sort()).toEqual([ID, `${ID}.jsonl`]);
  });

  describe("hostile input", () => {
    it("a transcript that is a symbolic link, or a link in the sidecar", async () => {
      await symlink("/etc/hostname", join(folderOf(source), ID, "subagents", "link"));
      await expectCode(store.capture(ID, source.context()), "workspace", /symbolic link/);
      const other = "11111111-2222-4333-8444-555555555555";
      await symlink("/etc/hostname", join(folderOf(source), `${other}.jsonl`));
      await expectCode(store.capture(other, source.context()), "workspace", /is a symbolic link/);
    });

    it("a transcript over the size limit", async () => {
      await expectCode(
        transcriptStore(demoTranscript, { maxBytes: 1000 }).capture(ID, source.context()),
        "limit",
        /over the 1000 byte limit/,
      );
    });

    it("the same id in two project folders: the workspace's copy, else the one written last; never a request to remove files", async () => {
      const stub = join(source.lease.home, ".demo-transcript", "sessions", "elsewhere", `${ID}.jsonl`);
      await mkdir(join(stub, ".."), { recursive: true });
      await writeFile(stub, "{}\n");
      // The other copy is newer, but the current workspace names its own.
      const now = new Date();
      await utimes(stub, now, now);
      await utimes(transcriptOf(source), new Date(1_000_000), new Date(1_000_000));
      const own = relative(join(source.lease.home, ".demo-transcript", "sessions"), transcriptOf(source));
      const byWorkspace = transcriptStore({ ...demoTranscript, workspaceTranscript: () => own });
      expect(await readFile((await byWorkspace.capture(ID, source.context())).file, "utf8")).toBe(original);
      // Without a workspace path: the one written last.
      await utimes(stub, new Date(1_000_000), new Date(1_000_000));
      await utimes(transcriptOf(source), now, now);
      expect(await readFile((await store.capture(ID, source.context())).file, "utf8")).toBe(original);
      // A tie cannot be told apart: refused, asking for another turn, not for files to be removed.
      await utimes(stub, now, now);
      const tie = await store.capture(ID, source.context()).then(
        () => undefined,
        (caught: unknown) => caught as Error,
      );
      expect(tie?.message).toMatch(/last written at the same moment.*Run the turn again/);
      expect(tie?.message).not.toMatch(/Remove/);
      await expectCode(
        transcriptStore({ ...demoTranscript, severalMatches: "refuse" }).capture(ID, source.context()),
        "session",
        /Several transcripts match/,
      );
    });

    it("a transcript that grows while it is captured", async () => {
      await writeFile(transcriptOf(source), original.repeat(400));
      const writer = spawn(
        process.execPath,
        ["-e", `const fs=require("fs");for(;;){fs.appendFileSync(${JSON.stringify(transcriptOf(source))},"{}\\n")}`],
        { stdio: "ignore" },
      );
      try {
        await expectCode(store.capture(ID, source.context()), "session", /changed while/);
      } finally {
        writer.kill("SIGKILL");
      }
    });

    it("a corrupt or escaping origin.json leaves the existing session untouched", async () => {
      const record = await store.capture(ID, source.context());
      await store.restore(record, target.context());
      const restored = join(target.lease.home, ".demo-transcript", "sessions", "project", `${ID}.jsonl`);
      const before = await readFile(restored, "utf8");
      const originFile = join(source.workspace, ".outpost", "conversations", "demo-transcript", ID, "origin.json");
      const origin = JSON.parse(await readFile(originFile, "utf8")) as Record<string, unknown>;
      for (const broken of [
        "{",
        JSON.stringify({ ...origin, transcript: "../../../../etc/passwd" }),
        JSON.stringify({ ...origin, id: "other" }),
        JSON.stringify({ ...origin, workspace: 'has"quote' }),
      ]) {
        await writeFile(originFile, broken);
        const error = await store.restore(record, target.context()).catch((caught: unknown) => caught);
        expect(isOutpostError(error), String(error)).toBe(true);
        expect(["session", "workspace", "configuration"]).toContain((error as { code: string }).code);
      }
      expect(await readFile(restored, "utf8")).toBe(before);
    });

    it("a failing plan leaves the existing session untouched", async () => {
      const record = await store.capture(ID, source.context());
      await store.restore(record, target.context());
      const throwing = transcriptStore({
        ...demoTranscript,
        plan: () => {
          throw new Error("no plan");
        },
      });
      await expect(throwing.restore(record, target.context())).rejects.toThrow("no plan");
      expect((await readdir(join(target.lease.home, ".demo-transcript", "sessions"))).sort()).toEqual(["project"]);
      expect((await readdir(join(target.lease.home, ".demo-transcript", "sessions", "project"))).sort()).toEqual([ID, `${ID}.jsonl`]);
    });
  });
});
