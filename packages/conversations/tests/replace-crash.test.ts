import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionBundleProfile } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { sessionBundleStore } from "../src/index.js";
import { sandboxProgramsSource } from "../src/sandbox/program-file.js";
import { demoProfile } from "./demo-profile.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

// A real crash: a node process running the sandbox library is killed with SIGKILL right after a step of a
// replacement; the next one (in another process, as the next restore would) must find the old or the new
// session complete, never a mix, and no leftover.
// The helpers as the sandbox gets them: the built programs' file, which exposes them as outpostSandbox.lib.
const LIBRARY = `"use strict";
${sandboxProgramsSource()}
const lib = outpostSandbox.lib;
const input = JSON.parse(process.argv[1]);
`;

function runLibrary(body: string, input: unknown): { status: number | null; signal: NodeJS.Signals | null; stderr: string } {
  const result = spawnSync(process.execPath, ["-e", `${LIBRARY}${body}`, JSON.stringify(input)], { encoding: "utf8", timeout: 60_000 });
  return { status: result.status, signal: result.signal, stderr: result.stderr };
}

const REPLACE = `lib.replaceTogether(input.journal, input.scope, input.replacements, (step) => {
  if (step === input.crashAt) process.kill(process.pid, "SIGKILL");
});`;
const RECOVER = "lib.recoverReplacement(input.journal, input.scope);";

/** A conversation in three parts, as a transcript store restores it: transcript, sidecar folder, index. */
const PARTS = ["sessions/project/id.jsonl", "sessions/project/id", "index.json"];
const STEPS = [
  "prepared",
  "aside 0",
  "aside 1",
  "aside 2",
  "in 0",
  "in 1",
  "in 2",
  "committed",
  "removed 0",
  "removed 1",
  "removed 2",
  "done",
];

describe("replacing a session survives a crash at any step", () => {
  let scope: string;
  beforeEach(async () => {
    scope = await mkdtemp(join(tmpdir(), "outpost-replace-crash-"));
  });
  afterEach(async () => {
    await rm(scope, { recursive: true, force: true });
  });

  const isFolder = (part: string) => part.endsWith("/id");
  async function writePart(path: string, text: string, folder: boolean): Promise<void> {
    if (folder) {
      await mkdir(join(path, "subagents"), { recursive: true });
      await writeFile(join(path, "subagents", "agent.jsonl"), text);
    } else {
      await writeFile(path, text);
    }
  }

  async function readPart(path: string, folder: boolean): Promise<string> {
    const file = folder ? join(path, "subagents", "agent.jsonl") : path;
    return readFile(file, "utf8").catch(() => "absent");
  }

  async function leftovers(): Promise<string[]> {
    const names = await readdir(scope, { recursive: true });
    return names.filter((name) => /\.outpost-(old|new-|replace)/.test(name));
  }

  const cases = STEPS.flatMap((step) => [
    { step, before: "old" as const },
    { step, before: "absent" as const },
  ]);
  it.each(cases)("killed after $step (session before: $before)", async ({ step, before }) => {
    await mkdir(join(scope, "sessions", "project"), { recursive: true });
    const replacements = [];
    for (const part of PARTS) {
      const target = join(scope, part);
      if (before === "old") await writePart(target, "old", isFolder(part));
      const staged = join(
        scope,
        part.replace(/[^/]+$/, (name) => `.${name}.outpost-new-test`),
      );
      await writePart(staged, "new", isFolder(part));
      replacements.push({ staged, target });
    }
    const journal = join(scope, "sessions", ".id.outpost-replace.json");
    const crashed = runLibrary(REPLACE, { journal, scope, replacements, crashAt: step });
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
    const recovered = runLibrary(RECOVER, { journal, scope });
    expect(recovered.status, recovered.stderr).toBe(0);
    const state = await Promise.all(PARTS.map((part) => readPart(join(scope, part), isFolder(part))));
    const committed = STEPS.indexOf(step) >= STEPS.indexOf("committed");
    expect(state).toEqual(PARTS.map(() => (committed ? "new" : before)));
    expect(await leftovers()).toEqual([]);
  });

  it("a journal planted by the agent cannot steer renames outside the scope or through links", async () => {
    const victim = await mkdtemp(join(tmpdir(), "outpost-replace-victim-"));
    try {
      await writeFile(join(victim, "precious"), "the host's own file");
      await mkdir(join(scope, "sessions"), { recursive: true });
      const journal = join(scope, "sessions", ".id.outpost-replace.json");
      const planted = (target: string) =>
        JSON.stringify({
          outpost: "replacement",
          phase: "prepared",
          pid: 1,
          startedAt: 0,
          entries: [
            {
              target,
              staged: join(target, "..", ".x.outpost-new-1"),
              backup: join(target, "..", `.${target.split("/").pop()}.outpost-old`),
              existed: false,
            },
          ],
        });
      for (const target of [join(victim, "precious"), join(scope, "..", victim.split("/").pop()!, "precious")]) {
        await writeFile(journal, planted(target));
        expect(runLibrary(RECOVER, { journal, scope }).status).toBe(0);
      }
      const { symlink } = await import("node:fs/promises");
      await symlink(victim, join(scope, "sessions", "linked"));
      await writeFile(journal, planted(join(scope, "sessions", "linked", "precious")));
      expect(runLibrary(RECOVER, { journal, scope }).status).toBe(0);
      expect(await readFile(join(victim, "precious"), "utf8")).toBe("the host's own file");
    } finally {
      await rm(victim, { recursive: true, force: true });
    }
  });
});

describe("the next restore of a bundle finishes or undoes a crashed one", () => {
  const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";
  let sandbox: TestSandbox;
  beforeEach(async () => {
    sandbox = await localSandbox("repo");
  });
  afterEach(async () => {
    await sandbox.dispose();
  });

  it("gets the old session back even when that next restore fails, and then replaces it", async () => {
    const sessions = join(sandbox.lease.home, ".demo", "sessions");
    const session = join(sessions, ID);
    const writeSession = async (folder: string, cwd: string) => {
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd })}\n`);
      await writeFile(join(folder, "log.jsonl"), `${JSON.stringify({ cwd })}\n`);
    };
    await writeSession(session, sandbox.lease.root);
    const store = sessionBundleStore(demoProfile);
    const record = await store.capture(ID, sandbox.context());
    await writeSession(session, "/the/old/session");
    const staged = join(sessions, `.${ID}.outpost-new-crash`);
    await writeSession(staged, "/the/new/session");
    const journal = join(sessions, `.${ID}.outpost-replace.json`);
    const crashed = runLibrary(REPLACE, {
      journal,
      scope: sandbox.lease.home,
      replacements: [{ staged, target: session }],
      crashAt: "aside 0",
    });
    expect(crashed.signal).toBe("SIGKILL");
    await expect(readdir(session)).rejects.toThrow();

    const failing: SessionBundleProfile = {
      ...demoProfile,
      relocate: () => {
        throw new Error("relocation refused");
      },
    };
    const refused = await sessionBundleStore(failing)
      .restore(record, sandbox.context())
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isOutpostError(refused), String(refused)).toBe(true);
    expect(JSON.parse(await readFile(join(session, "state.json"), "utf8")).cwd).toBe("/the/old/session");

    await store.restore(record, sandbox.context());
    expect(JSON.parse(await readFile(join(session, "state.json"), "utf8")).cwd).toBe(sandbox.lease.root);
    expect(await readdir(sessions)).toEqual([ID]);
  });
});

describe("a restore of the same session still running elsewhere", () => {
  const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";
  it("is left alone: the second restore fails with code conflict, in the sandbox and in-process", async () => {
    const { spawn } = await import("node:child_process");
    const sandbox = await localSandbox("repo");
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      const sessions = join(sandbox.lease.home, ".demo", "sessions");
      await mkdir(join(sessions, ID), { recursive: true });
      await writeFile(join(sessions, ID, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd: sandbox.lease.root })}\n`);
      await writeFile(join(sessions, ID, "log.jsonl"), "{}\n");
      const store = sessionBundleStore(demoProfile);
      const record = await store.capture(ID, sandbox.context());
      const journal = join(sessions, `.${ID}.outpost-replace.json`);
      const staged = join(sessions, `.${ID}.outpost-new-other`);
      await writeFile(
        journal,
        JSON.stringify({
          outpost: "replacement",
          phase: "prepared",
          pid: holder.pid,
          startedAt: Date.now(),
          entries: [{ staged, target: join(sessions, ID), backup: join(sessions, `.${ID}.outpost-old`), existed: true }],
        }),
      );
      for (const local of [false, true]) {
        const error = await store.restore(record, { ...sandbox.context(), local }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(isOutpostError(error, "conflict"), String(error)).toBe(true);
      }
      holder.kill("SIGKILL");
      await new Promise((resolve) => holder.once("exit", resolve));
      await store.restore(record, sandbox.context());
      expect(await readdir(sessions)).toEqual([ID]);
    } finally {
      holder.kill("SIGKILL");
      await sandbox.dispose();
    }
  });
});

describe("a captured conversation on the host survives a crash between the two renames of a new capture", () => {
  const ID = "0716f583-aaaa-4bbb-8ccc-0123456789ab";
  it("locate puts the copy kept aside back", async () => {
    const { rename } = await import("node:fs/promises");
    const { transcriptStore } = await import("../src/index.js");
    const { demoTranscript, transcriptLine } = await import("./demo-transcript.js");
    const sandbox = await localSandbox("repo");
    try {
      const project = join(sandbox.lease.home, ".demo-transcript", "sessions", "repo");
      await mkdir(project, { recursive: true });
      await writeFile(join(project, `${ID}.jsonl`), transcriptLine(0, sandbox.lease.root, sandbox.lease.home));
      const store = transcriptStore(demoTranscript);
      const record = await store.capture(ID, sandbox.context());
      const folder = join(sandbox.workspace, ".outpost", "conversations", "demo-transcript", ID);
      // What a crash leaves between renaming the old capture aside and renaming the new one in.
      await rename(folder, join(folder, "..", `.${ID}.old-0123abcd`));
      const located = await store.locate(ID, sandbox.workspace);
      expect(located.file).toBe(record.file);
      expect(await readdir(join(folder, ".."))).toEqual([ID]);
    } finally {
      await sandbox.dispose();
    }
  });
});
