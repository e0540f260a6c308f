import { spawnSync } from "node:child_process";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessionBundleStore, transcriptStore } from "../src/index.js";
import { sandboxProgramsSource } from "../src/sandbox/program-file.js";
import { demoProfile } from "./demo-profile.js";
import { demoTranscript, transcriptLine } from "./demo-transcript.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";

async function writeSession(folder: string, cwd: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd })}\n`);
  await writeFile(join(folder, "log.jsonl"), `${JSON.stringify({ cwd })}\n`);
}

const cwdOf = async (folder: string) => (JSON.parse(await readFile(join(folder, "state.json"), "utf8")) as { cwd: string }).cwd;

describe("restoring over a session that is already there", () => {
  let source: TestSandbox;
  let target: TestSandbox;
  const store = sessionBundleStore(demoProfile);
  const sessionOf = (sandbox: TestSandbox) => join(sandbox.lease.home, ".demo", "sessions", ID);
  const recoveryOf = (sandbox: TestSandbox) => join(sandbox.lease.home, ".demo", ".outpost-recovery");

  beforeEach(async () => {
    source = await localSandbox("repo");
    target = await localSandbox("elsewhere");
    await writeSession(sessionOf(source), source.lease.root);
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
  });

  it("keeps each replaced session under the CLI home's .outpost-recovery", async () => {
    const record = await store.capture(ID, source.context());
    await writeSession(sessionOf(target), "/first/session");
    await store.restore(record, target.context());
    await writeFile(join(sessionOf(target), "state.json"), JSON.stringify({ version: 2, id: ID, cwd: "/second/session" }));
    await store.restore(record, target.context());
    expect(await cwdOf(sessionOf(target))).toBe(target.lease.root);
    const kept = (await readdir(recoveryOf(target))).sort();
    expect(kept).toHaveLength(2);
    for (const name of kept) expect(name.startsWith(`${ID}-`)).toBe(true);
    expect((await Promise.all(kept.map((name) => cwdOf(join(recoveryOf(target), name))))).sort()).toEqual([
      "/first/session",
      "/second/session",
    ]);
    // Nothing is kept when nothing was replaced, and the sessions folder holds only the session.
    expect(await readdir(join(target.lease.home, ".demo", "sessions"))).toEqual([ID]);
    await expect(readdir(recoveryOf(source))).rejects.toThrow();
  });

  it("never replaces the session of a live home (host placement): the agent continues from it", async () => {
    const record = await store.capture(ID, source.context());
    await writeFile(join(sessionOf(source), "log.jsonl"), '{"turn":"newer than the capture"}\n');
    const warnings: string[] = [];
    await store.restore(record, { ...source.context(), local: true, warn: (message) => warnings.push(message) });
    expect(await readFile(join(sessionOf(source), "log.jsonl"), "utf8")).toBe('{"turn":"newer than the capture"}\n');
    expect(warnings.join("\n")).toMatch(/already in the sandbox home/);
    await expect(readdir(recoveryOf(source))).rejects.toThrow();
    expect(await readdir(source.lease.home)).not.toContain(".outpost-staging");
    // Absent from the live home, it is restored there.
    await store.restore(record, { ...target.context(), local: true });
    expect(await cwdOf(sessionOf(target))).toBe(target.lease.root);
  });

  it("a transcript already in a live home is left as it is", async () => {
    const transcripts = transcriptStore(demoTranscript);
    const folder = join(source.lease.home, ".demo-transcript", "sessions", "repo");
    await mkdir(folder, { recursive: true });
    const transcript = join(folder, `${ID}.jsonl`);
    await writeFile(transcript, transcriptLine(0, source.lease.root, source.lease.home), { mode: 0o600 });
    const record = await transcripts.capture(ID, source.context());
    await writeFile(transcript, transcriptLine(1, source.lease.root, source.lease.home));
    const warnings: string[] = [];
    await transcripts.restore(record, { ...source.context(), local: true, warn: (message) => warnings.push(message) });
    expect(await readFile(transcript, "utf8")).toBe(transcriptLine(1, source.lease.root, source.lease.home));
    expect(warnings.join("\n")).toMatch(/already in the sandbox home/);
  });
});

// The replaced session goes to its recovery name also when a crash came after the commit.
// The helpers as the sandbox gets them: the built programs' file, which exposes them as outpostSandbox.lib.
const LIBRARY = `"use strict";
${sandboxProgramsSource()}
const lib = outpostSandbox.lib;
const input = JSON.parse(process.argv[1]);
`;
const run = (body: string, input: unknown) =>
  spawnSync(process.execPath, ["-e", `${LIBRARY}${body}`, JSON.stringify(input)], { encoding: "utf8", timeout: 60_000 });

describe("the recovery copy after a crash", () => {
  let sandbox: TestSandbox;
  beforeEach(async () => {
    sandbox = await localSandbox("repo");
  });
  afterEach(async () => {
    await sandbox.dispose();
  });

  it("is moved to .outpost-recovery by the next replacement; a planted journal cannot aim it elsewhere", async () => {
    const scope = sandbox.lease.home;
    const sessions = join(scope, ".demo", "sessions");
    const target = join(sessions, ID);
    const staged = join(sessions, `.${ID}.outpost-new-crash`);
    await writeSession(target, "/old");
    await writeSession(staged, "/new");
    const journal = join(sessions, `.${ID}.outpost-replace.json`);
    const recovery = join(scope, ".demo", ".outpost-recovery", `${ID}-crash`);
    const crashed = run(
      `lib.replaceTogether(input.journal, input.scope, input.replacements, (step) => { if (step === "committed") process.kill(process.pid, "SIGKILL"); });`,
      {
        journal,
        scope,
        replacements: [{ staged, target, recovery }],
      },
    );
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
    expect(run("lib.recoverReplacement(input.journal, input.scope);", { journal, scope }).status).toBe(0);
    expect(await cwdOf(target)).toBe("/new");
    expect(await cwdOf(recovery)).toBe("/old");

    // A journal naming a recovery outside the scope, or not in a .outpost-recovery folder, is discarded.
    for (const planted of [join(sandbox.base, "outside", ".outpost-recovery", "x"), join(scope, "elsewhere", "x")]) {
      await writeSession(join(sessions, `.${ID}.outpost-old`), "/backup");
      await writeFile(
        journal,
        JSON.stringify({
          outpost: "replacement",
          phase: "committed",
          pid: 1,
          startedAt: 0,
          entries: [{ staged, target, backup: join(sessions, `.${ID}.outpost-old`), existed: true, recovery: planted }],
        }),
      );
      expect(run("lib.recoverReplacement(input.journal, input.scope);", { journal, scope }).status).toBe(0);
      await expect(readdir(planted)).rejects.toThrow();
      expect(await cwdOf(target)).toBe("/new");
    }
  });
});
