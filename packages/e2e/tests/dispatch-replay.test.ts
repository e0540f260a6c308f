import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { claudeAgent } from "@outpost/agent-claude";
import { isOutpostError, type AgentEvent, type Transport } from "@outpost/core";
import {
  createReplayAgent,
  dispatch,
  JOURNAL_VERSION,
  localJournalTransport,
  readJournal,
  type DispatchResult,
  type Journal,
} from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { memoryTransport } from "@outpost/testkit";
import { startModelServer, writeFileStep } from "@outpost/testkit/model-server";
import { gitIn, scratchRepository } from "../src/index.js";

// Record a real Claude Code run once (scripted model server), then replay it with no model server at all.
const require = createRequire(import.meta.url);
const claudePackage = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
const claudeBinary = join(claudePackage, (require("@anthropic-ai/claude-code/package.json") as { bin: { claude: string } }).bin.claude);
const API_KEY = "sk-ant-replay-secret-0123456789";
const BRIEF = "Create hello.txt and data.bin, committing each.";

interface Recording {
  readonly repository: string;
  /** A clone taken before the run: where a replay starts from the same baseline. */
  readonly cloneSource: string;
  readonly result: DispatchResult;
  readonly events: AgentEvent[];
  readonly journal: Journal;
}

let recording: Recording;

function freshClone(): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-replay-clone-"));
  execFileSync("git", ["clone", "--quiet", recording.cloneSource, directory]);
  return directory;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .map((name) => join(directory, name))
    .filter((path) => statSync(path).isFile());
}

async function replay(options: { repository: string; divergence?: "fail" | "warn"; journal?: Journal; brief?: string; passes?: number }) {
  const events: AgentEvent[] = [];
  const warnings: string[] = [];
  const result = await dispatch({
    agent: createReplayAgent({ journal: options.journal ?? recording.journal, divergence: options.divergence ?? "fail" }),
    brief: options.brief ?? BRIEF,
    repository: options.repository,
    sandboxProvider: localProvider({ home: "private" }),
    logging: false,
    ...(options.passes ? { passes: options.passes, until: [] } : {}),
    observe: (observation) => {
      // The agent's own events; fallbacks and steering are the engine's.
      if (observation.event.type !== "fallback" && observation.event.type !== "steer" && observation.event.type !== "watchdog")
        events.push(observation.event);
    },
    warn: (message) => warnings.push(message),
  });
  return { result, events, warnings };
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

beforeAll(async () => {
  const repository = scratchRepository();
  const cloneSource = mkdtempSync(join(tmpdir(), "outpost-replay-source-"));
  execFileSync("git", ["clone", "--quiet", "--bare", repository, cloneSource]);
  const server = await startModelServer({
    script: [
      writeFileStep("hello.txt", "Hello from a recorded run.\n"),
      {
        toolCall: { name: "Bash", arguments: { command: "git add hello.txt && git commit -q -m 'Add hello.txt'", description: "Commit" } },
      },
      {
        toolCall: {
          name: "Bash",
          arguments: {
            command: "printf 'bin\\000\\001\\377' > data.bin && git add data.bin && git commit -q -m 'Add data.bin'",
            description: "Commit",
          },
        },
      },
      { text: "Both files are committed. <outpost>done</outpost>" },
    ],
  });
  const events: AgentEvent[] = [];
  let result: DispatchResult;
  try {
    result = await dispatch({
      agent: claudeAgent({ baseUrl: server.url, apiKey: API_KEY, executable: claudeBinary, maxRetries: 0 }),
      brief: BRIEF,
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      logging: { replayable: true },
      observe: (observation) => {
        // The agent's own events; fallbacks and steering are the engine's.
        if (observation.event.type !== "fallback" && observation.event.type !== "steer" && observation.event.type !== "watchdog")
          events.push(observation.event);
      },
    });
    expect(server.problems).toEqual([]);
  } finally {
    await server.close();
  }
  const journal = await readJournal({ transport: localJournalTransport(repository), reference: result.journal! });
  recording = { repository, cloneSource, result, events, journal };
}, 180_000);

describe("replay of a recorded Claude Code run (no model server running)", () => {
  it("the recorded run committed twice and its journal holds both commits, and never the API key", () => {
    expect(recording.result.commits).toHaveLength(2);
    expect(recording.result.journal?.key).toBe(`journals/${recording.result.dispatchId}/index.json`);
    expect(recording.journal.complete).toBe(true);
    expect(recording.journal.records.filter((record) => record.kind === "commit")).toHaveLength(2);
    const stored = filesUnder(join(recording.repository, ".outpost", "storage"));
    expect(stored.length).toBeGreaterThan(1);
    for (const file of stored) expect(readFileSync(file, "utf8")).not.toContain(API_KEY);
  });

  it("replays in a fresh clone: same events, same usage, same commit ids", async () => {
    const clone = freshClone();
    const { result, events, warnings } = await replay({ repository: clone });
    // The compact journal keeps every normalized event but raw lines.
    expect(events).toEqual(recording.events.filter((event) => event.type !== "raw"));
    expect(result.usage).toEqual(recording.result.usage);
    expect(result.text).toBe(recording.result.text);
    expect(result.completed).toBe(true);
    expect(result.commits).toEqual(recording.result.commits);
    expect(gitIn(clone, "rev-parse", "HEAD")).toBe(recording.result.commits[1]);
    // Rebuilt the fast way, by one fast-import: the commits are in its pack, not loose objects written one by one.
    for (const id of result.commits) expect(existsSync(join(clone, ".git", "objects", id.slice(0, 2), id.slice(2))), id).toBe(false);
    expect(gitIn(clone, "fsck", "--no-dangling", "--connectivity-only")).toBe("");
    expect(readFileSync(join(clone, "data.bin"))).toEqual(readFileSync(join(recording.repository, "data.bin")));
    expect(gitIn(clone, "status", "--porcelain")).toBe("");
    expect(result.divergences).toEqual([]);
    expect(warnings.filter((message) => message.includes("diverged"))).toEqual([]);
  });

  it("a replay agent is single use: a second dispatch with it finds the journal exhausted", async () => {
    const agent = createReplayAgent({ journal: recording.journal });
    expect(agent.kind).toBe("replay");
    expect(agent.name).toBe("claude");
    expect(agent.turns).toHaveLength(1);
    expect(agent.remainingTurns).toBe(1);
    expect(agent.pendingSteering()).toBeUndefined();
    await dispatch({ agent, brief: BRIEF, repository: freshClone(), sandboxProvider: localProvider({ home: "private" }), logging: false });
    expect(agent.remainingTurns).toBe(0);
    const error = await rejection(
      dispatch({ agent, brief: BRIEF, repository: freshClone(), sandboxProvider: localProvider({ home: "private" }), logging: false }),
    );
    expect(isOutpostError(error, "replay")).toBe(true);
    expect((error as { details: { divergence: { kind: string } } }).details.divergence.kind).toBe("exhausted");
  });
});

describe("replay divergences, under fail and under warn", () => {
  it("prompt: another brief fails, or is reported and the run replays as recorded", async () => {
    const error = await rejection(replay({ repository: freshClone(), brief: "Something else." }));
    expect(isOutpostError(error, "replay")).toBe(true);
    expect((error as Error).message).toContain("differs from the recorded one");
    const warned = await replay({ repository: freshClone(), brief: "Something else.", divergence: "warn" });
    expect(warned.result.divergences?.map((divergence) => divergence.kind)).toEqual(["prompt"]);
    expect(warned.warnings.some((message) => message.startsWith("Replay diverged (prompt)"))).toBe(true);
    expect(warned.result.commits).toEqual(recording.result.commits);
  });

  it("baseline and tree: a repository that starts elsewhere fails, or is reported with each rebuilt tree", async () => {
    const moved = () => {
      const clone = freshClone();
      execFileSync("git", ["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "elsewhere"], {
        cwd: clone,
      });
      return clone;
    };
    const error = await rejection(replay({ repository: moved() }));
    expect((error as { details: { divergence: { kind: string } } }).details.divergence.kind).toBe("baseline");
    const warned = await replay({ repository: moved(), divergence: "warn" });
    expect(warned.result.divergences?.map((divergence) => divergence.kind)).toEqual(["baseline"]);
    // Same trees on another parent: the commits are rebuilt, under new ids.
    expect(warned.result.commits).toHaveLength(2);
    expect(warned.result.commits).not.toEqual(recording.result.commits);

    const extraFile = freshClone();
    execFileSync("sh", ["-c", "echo extra > extra.txt && git add extra.txt && git -c user.name=x -c user.email=x@x commit -q -m extra"], {
      cwd: extraFile,
    });
    const trees = await replay({ repository: extraFile, divergence: "warn" });
    expect(trees.result.divergences?.map((divergence) => divergence.kind)).toEqual(["baseline", "tree", "tree"]);
  });

  it("tree: a recorded tree the patch does not rebuild fails under fail", async () => {
    const tampered: Journal = {
      ...recording.journal,
      records: recording.journal.records.map((record) =>
        record.kind === "commit" ? { ...record, commit: { ...record.commit, tree: "0".repeat(40) } } : record,
      ),
    };
    const error = await rejection(replay({ repository: freshClone(), journal: tampered }));
    expect((error as { details: { divergence: { kind: string } } }).details.divergence.kind).toBe("tree");
    const warned = await replay({ repository: freshClone(), journal: tampered, divergence: "warn" });
    expect(warned.result.divergences?.map((divergence) => divergence.kind)).toEqual(["tree", "tree"]);
  });

  it("exhausted: more turns asked than recorded fails under fail and under warn", async () => {
    for (const divergence of ["fail", "warn"] as const) {
      const error = await rejection(replay({ repository: freshClone(), passes: 2, divergence }));
      expect(isOutpostError(error, "replay")).toBe(true);
      expect((error as { details: { divergence: { kind: string } } }).details.divergence.kind).toBe("exhausted");
    }
  });

  it("unrecorded: a turn journaled only in part fails, or replays what was recorded", async () => {
    const cut = recording.journal.records.findIndex((record) => record.kind === "turn-end");
    const partial: Journal = { ...recording.journal, complete: false, records: recording.journal.records.slice(0, cut - 1) };
    const error = await rejection(replay({ repository: freshClone(), journal: partial }));
    expect((error as { details: { divergence: { kind: string } } }).details.divergence.kind).toBe("unrecorded");
    const warned = await replay({ repository: freshClone(), journal: partial, divergence: "warn" });
    expect(warned.result.divergences?.map((divergence) => divergence.kind)).toEqual(["unrecorded"]);
    expect(warned.events.length).toBe(partial.records.filter((record) => record.kind === "event").length);
    expect(warned.result.commits).toEqual([]);
  });
});

describe("a damaged journal, read and replayed through dispatch()", () => {
  /** The recorded journal's objects copied into a fresh transport, changed by `damage`, then read and replayed. */
  async function replayDamaged(damage: (transport: Transport, keys: string[]) => Promise<void>) {
    const source = localJournalTransport(recording.repository);
    const transport = memoryTransport();
    const prefix = recording.journal.reference.key.replace(/index\.json$/, "");
    const keys: string[] = [];
    for await (const entry of source.list(prefix)) {
      keys.push(entry.key);
      await transport.write(entry.key, (await source.read(entry.key))!.bytes, { ifRevision: null });
    }
    await damage(transport, keys.sort());
    const repository = freshClone();
    const head = gitIn(repository, "rev-parse", "HEAD");
    const error = await rejection(
      readJournal({ transport, reference: recording.journal.reference.key }).then((journal) => replay({ repository, journal })),
    );
    // Refused before anything ran: the clone is where it was.
    expect(gitIn(repository, "rev-parse", "HEAD")).toBe(head);
    return error as Error & { code: string };
  }

  it("a truncated journal (a listed segment missing) is refused with code replay naming the segment", async () => {
    const error = await replayDamaged(async (transport, keys) => {
      const segment = keys.find((key) => key.endsWith("segment-000001.json"))!;
      await transport.remove(segment, { ifRevision: (await transport.read(segment))!.revision });
    });
    expect(isOutpostError(error, "replay")).toBe(true);
    expect(error.message).toMatch(/truncated: segment 1 .* is missing/);
  });

  it("a journal from a newer index version is refused with code replay and says which version this Outpost reads", async () => {
    const error = await replayDamaged(async (transport) => {
      const key = recording.journal.reference.key;
      const index = (await transport.read(key))!;
      const newer = { ...(JSON.parse(new TextDecoder().decode(index.bytes)) as object), version: JOURNAL_VERSION + 1 };
      await transport.write(key, new TextEncoder().encode(JSON.stringify(newer)), { ifRevision: index.revision });
    });
    expect(isOutpostError(error, "replay")).toBe(true);
    expect(error.message).toContain(
      `newer Outpost (index version ${JOURNAL_VERSION + 1}; this one reads up to version ${JOURNAL_VERSION})`,
    );
  });
});
