import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Command, SandboxLease } from "@outpost/core";
import { sessionBundleStore, transcriptStore } from "../src/index.js";
import { demoProfile } from "./demo-profile.js";
import { demoTranscript, transcriptLine } from "./demo-transcript.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "5be0a2c1-aaaa-4bbb-8ccc-0123456789ab";

interface Seen {
  readonly executable: string;
  readonly live: boolean;
  readonly stdin?: string;
}

/** The real lease, with every command it is asked to run written down (and `idleInput` as given). */
function observed(lease: SandboxLease, seen: Seen[], idleInput = true): SandboxLease {
  return new Proxy(lease, {
    get(target, property, receiver) {
      if (property === "idleInput") return idleInput;
      if (property === "invoke")
        return (command: Command) => {
          seen.push({
            executable: command.executable,
            live: command.input !== undefined,
            ...(command.stdin ? { stdin: command.stdin } : {}),
          });
          return target.invoke(command);
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Host pids whose environment holds `token` (the standby's CLI-home variable makes it unique to a test). */
async function pidsWith(token: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const environment = await readFile(`/proc/${entry}/environ`, "latin1").catch(() => "");
    if (environment.includes(token)) found.push(Number(entry));
  }
  return found;
}

const locating = (seen: readonly Seen[]) => seen.filter((command) => command.stdin?.includes('"pattern"'));

describe("transcriptStore.prepareCapture: the locating script starts during the turn", () => {
  let sandbox: TestSandbox;
  let home: string;
  let transcript: string;

  beforeEach(async () => {
    sandbox = await localSandbox("repo");
    // The CLI home travels as the agent's variable: the standby gets it at start, a unique value per test.
    home = join(sandbox.lease.home, `cli-${randomUUID()}`);
    const folder = join(home, "sessions", "repo");
    await mkdir(folder, { recursive: true });
    transcript = Array.from({ length: 5 }, (_, index) => transcriptLine(index, sandbox.lease.root, sandbox.lease.home)).join("");
    await writeFile(join(folder, `${ID}.jsonl`), transcript, { mode: 0o600 });
  });
  afterEach(async () => {
    await sandbox.dispose();
  });

  const contextOf = (lease: SandboxLease) => ({ ...sandbox.context(), sandbox: lease, variables: { DEMO_TRANSCRIPT_HOME: home } });

  it("hands the waiting process its input: the capture runs no locating script of its own, and captures the same bytes", async () => {
    const seen: Seen[] = [];
    const store = transcriptStore(demoTranscript);
    const context = contextOf(observed(sandbox.lease, seen));
    store.prepareCapture!(context);
    expect(seen).toEqual([{ executable: "node", live: true }]);
    const record = await store.capture(ID, context);
    expect(locating(seen)).toEqual([]);
    expect(seen.filter((command) => command.executable === "node")).toHaveLength(1);
    expect(await readFile(record.file, "utf8")).toBe(transcript);
    // The capture goes on once the outcome is printed; the process exits after that.
    await expect.poll(() => pidsWith(home), { timeout: 30_000, interval: 50 }).toEqual([]);
  });

  it("runs the script again when the waiting process was killed in the sandbox, and loses nothing", async () => {
    const seen: Seen[] = [];
    const store = transcriptStore(demoTranscript);
    const context = contextOf(observed(sandbox.lease, seen));
    store.prepareCapture!(context);
    // A loaded machine may take seconds to start node: wait for the process, without a bound on speed.
    await expect.poll(async () => (await pidsWith(home)).length, { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
    const pids = await pidsWith(home);
    for (const pid of pids) process.kill(pid, "SIGKILL");
    const record = await store.capture(ID, context);
    expect(locating(seen)).toHaveLength(1);
    expect(await readFile(record.file, "utf8")).toBe(transcript);
  });

  it("a second turn replaces the waiting process; a capture with other variables runs its own script", async () => {
    const seen: Seen[] = [];
    const store = transcriptStore(demoTranscript);
    const context = contextOf(observed(sandbox.lease, seen));
    store.prepareCapture!(context);
    store.prepareCapture!(context);
    const other = { ...context, variables: { DEMO_TRANSCRIPT_HOME: home, UNRELATED: "1" } };
    expect((await store.capture(ID, other)).id).toBe(ID);
    expect(locating(seen)).toEqual([]);
    // The other variables do not touch the CLI home: the standby fits and was used.
    store.prepareCapture!(context);
    const moved = { ...context, variables: { DEMO_TRANSCRIPT_HOME: `${home}-elsewhere` } };
    await expect(store.capture(ID, moved)).rejects.toMatchObject({ code: "session" });
    expect(locating(seen)).toHaveLength(1);
    // Every waiting process is gone: the disposed ones were ended, the used one exited.
    await expect.poll(() => pidsWith(home), { timeout: 30_000, interval: 50 }).toEqual([]);
  });

  it("starts nothing where a waiting process would cost (no idleInput) or where capture runs in-process", async () => {
    const seen: Seen[] = [];
    const store = transcriptStore(demoTranscript);
    store.prepareCapture!(contextOf(observed(sandbox.lease, seen, false)));
    store.prepareCapture!({ ...contextOf(observed(sandbox.lease, seen)), local: true });
    expect(seen).toEqual([]);
    const record = await store.capture(ID, contextOf(observed(sandbox.lease, seen, false)));
    expect(locating(seen)).toHaveLength(1);
    expect(await readFile(record.file, "utf8")).toBe(transcript);
  });
});

describe("sessionBundleStore.prepareCapture: the capturing script starts during the turn", () => {
  let sandbox: TestSandbox;

  beforeEach(async () => {
    sandbox = await localSandbox("repo");
    const folder = join(sandbox.lease.home, ".demo", "sessions", ID);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd: sandbox.lease.root })}\n`);
    await writeFile(join(folder, "log.jsonl"), `{"type":"text","text":"hi"}\n`);
  });
  afterEach(async () => {
    await sandbox.dispose();
  });

  it("the capture hands the waiting script its input and gets the same bundle as without it", async () => {
    const plain = await sessionBundleStore(demoProfile).capture(ID, sandbox.context());
    const expected = await readFile(plain.file, "utf8");
    const seen: Seen[] = [];
    const store = sessionBundleStore(demoProfile);
    const context = { ...sandbox.context(), sandbox: observed(sandbox.lease, seen) };
    store.prepareCapture!(context);
    expect(seen).toEqual([{ executable: "node", live: true }]);
    const record = await store.capture(ID, context);
    // After the waiting script: only the download and the removal of the sandbox's temporary bundle.
    expect(seen.filter((command) => command.stdin?.includes('"workspace"'))).toEqual([]);
    const bundle = JSON.parse(await readFile(record.file, "utf8")) as { files: { path: string }[] };
    const before = JSON.parse(expected) as { files: { path: string }[] };
    expect(bundle.files).toEqual(before.files);
  });
});
