import { createHash } from "node:crypto";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { claudeAgent } from "@outpost/agent-claude";
import { ReplayDivergence, type Transport } from "@outpost/core";
import {
  createObservationHub,
  createReplayAgent,
  createSteering,
  dispatch,
  localJournalTransport,
  readJournal,
  type DispatchResult,
  type Journal,
  type SteeringReceipt,
} from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { memoryTransport } from "@outpost/testkit";
import { writeFileStep, type ScriptStep } from "@outpost/testkit/model-server";
import { gitIn, scratchRepository } from "../src/index.js";
import { missingCli, pathWithClis } from "./support/cli-bin.js";
import { outpostArguments } from "./support/cli-process.js";
import { repositoryState } from "./support/repository-state.js";
import { withModelServer } from "./support/with-model-server.js";

// A real Claude Code run, steered (an instruction injected into its turn), with a typed response repaired once and
// two commits, recorded into a signed journal; then replayed with no model server, refused whole at every divergence.
const KEY = "journal-key-for-the-trust-test";
const INSTRUCTION = "STEERING-TRUST: keep the files small";
const BRIEF = "Create hello.txt and data.bin, committing each, then describe them.";
const provider = () => localProvider({ home: "private", variables: { PATH: pathWithClis() } });
const bash = (command: string): ScriptStep => ({ toolCall: { name: "Bash", arguments: { command, description: "Commit" } } });
const count = (value: unknown): { count: number } => {
  if (typeof (value as { count?: unknown } | null)?.count !== "number") throw new Error("count must be a number");
  return value as { count: number };
};

interface Recording {
  readonly source: string;
  readonly repository: string;
  readonly result: DispatchResult;
  readonly observed: string[];
  readonly journal: Journal;
}
let recording: Recording;

function freshClone(): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-trust-clone-"));
  execFileSync("git", ["clone", "--quiet", recording.source, directory]);
  return directory;
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const replay = (repository: string, journal: Journal, more: { brief?: string } = {}) =>
  dispatch({ agent: createReplayAgent({ journal }), repository, sandboxProvider: localProvider(), logging: false, ...more });

const unavailable = missingCli("claude");
(unavailable ? describe.skip : describe)(
  `trusted replay of a steered Claude Code run${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
  () => {
    beforeAll(async () => {
      const repository = scratchRepository();
      const source = mkdtempSync(join(tmpdir(), "outpost-trust-source-"));
      execFileSync("git", ["clone", "--quiet", "--bare", repository, source]);
      const steering = createSteering();
      const receipts: Promise<SteeringReceipt>[] = [];
      let calls = 0;
      const observed: string[] = [];
      const result = await withModelServer(
        async (request): Promise<ScriptStep> => {
          calls += 1;
          if (calls === 1) {
            receipts.push(steering.send(INSTRUCTION));
            return writeFileStep("hello.txt", "Hello.\n");
          }
          // Held until the instruction is in: the turn takes it before it ends.
          if (!request.transcript.includes(INSTRUCTION)) await Promise.race([receipts[0], new Promise((done) => setTimeout(done, 2_000))]);
          if (calls === 2) return bash("git add hello.txt && git commit -q -m 'Add hello.txt'");
          if (calls === 3) return bash("printf 'bin\\000\\001' > data.bin && git add data.bin && git commit -q -m 'Add data.bin'");
          if (calls === 4) return { text: 'Two files. <response>{"count":"two"}</response> <outpost>done</outpost>' };
          return { text: '<response>{"count":2}</response>' };
        },
        (server) =>
          dispatch({
            agent: claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-trust-test", maxRetries: 0 }),
            brief: BRIEF,
            repository,
            sandboxProvider: provider(),
            steering,
            response: { schema: count },
            logging: { replayable: true, signingKey: KEY },
            observe: (observation) => {
              if (observation.event.type !== "raw") observed.push(observation.event.type);
            },
          }),
      );
      expect(await receipts[0]).toMatchObject({ delivery: "injected", pass: 1 });
      const journal = await readJournal({ transport: localJournalTransport(repository), reference: result.journal!, key: KEY });
      recording = { source, repository, result, observed, journal };
    }, 240_000);

    it("journals every input: the injected instruction among the events, the repair turn, both commits; the index is signed", () => {
      expect(recording.result.value).toEqual({ count: 2 });
      expect(recording.result.turns.map((turn) => turn.repair)).toEqual([undefined, 1]);
      expect(recording.result.commits).toHaveLength(2);
      const kinds = recording.journal.records.map((record) => record.kind);
      expect(kinds.filter((kind) => kind === "steer")).toHaveLength(1);
      expect(kinds.indexOf("steer")).toBeLessThan(kinds.indexOf("turn-end"));
      expect(recording.journal.records.find((record) => record.kind === "steer")).toMatchObject({
        text: INSTRUCTION,
        delivery: "injected",
      });
      expect(recording.journal.records.filter((record) => record.kind === "turn-start").map((record) => record.repair)).toEqual([
        undefined,
        1,
      ]);
      expect(kinds.filter((kind) => kind === "commit")).toHaveLength(2);
    });

    it("replays offline without the brief: the steer at its recorded place, the repair turn, the same commit ids, events with source", async () => {
      const clone = freshClone();
      const replayed: string[] = [];
      const sources = new Set<string | undefined>();
      const hub = createObservationHub();
      const landed: string[] = [];
      hub.subscribe((event) => void (event.type === "commit" && landed.push(event.id)));
      const result = await dispatch({
        agent: createReplayAgent({ journal: recording.journal }),
        repository: clone,
        sandboxProvider: localProvider(),
        logging: false,
        observation: hub,
        observe: (observation) => {
          replayed.push(observation.event.type);
          if (observation.event.type !== "steer") sources.add(observation.source);
        },
      });
      expect(replayed).toEqual(recording.observed);
      expect(sources).toEqual(new Set([recording.journal.source]));
      expect(result.turns.map((turn) => turn.repair)).toEqual([undefined, 1]);
      expect(result.commits).toEqual(recording.result.commits);
      expect(gitIn(clone, "rev-parse", "HEAD")).toBe(recording.result.commits[1]);
      expect(gitIn(clone, "for-each-ref", "refs/outpost")).toBe("");
      expect(result.divergences).toEqual([]);
      expect(landed).toEqual(recording.result.commits);
    });

    it("outpost replay runs inside a network namespace (no network at all), reading the journal from the .outpost folder", async () => {
      const clone = freshClone();
      const args = outpostArguments([
        "replay",
        recording.result.journal!.key,
        "--from",
        join(recording.repository, ".outpost"),
        "--provider",
        "local",
      ]);
      const child = spawn("unshare", ["-rn", process.execPath, ...args], { cwd: clone, stdio: "pipe" });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const status = await new Promise((done) => child.on("exit", done));
      expect(status, output).toBe(0);
      expect(gitIn(clone, "rev-parse", "HEAD")).toBe(recording.result.commits[1]);
    }, 120_000);

    it("every divergence under fail throws ReplayDivergence and leaves the branch and the work tree exactly as they were", async () => {
      const edited = (change: (commit: Extract<Journal["records"][number], { kind: "commit" }>["commit"]) => object): Journal => ({
        ...recording.journal,
        records: recording.journal.records.map((record) =>
          record.kind === "commit" ? { ...record, commit: { ...record.commit, ...change(record.commit) } } : record,
        ),
      });
      const used = createReplayAgent({ journal: recording.journal });
      await dispatch({ agent: used, repository: freshClone(), sandboxProvider: localProvider(), logging: false });
      const cut = recording.journal.records.findIndex((record) => record.kind === "turn-end");
      const cases: [string, (clone: string) => Promise<unknown>][] = [
        ["prompt", (clone) => replay(clone, recording.journal, { brief: "Something else." })],
        [
          "baseline",
          (clone) => {
            gitIn(clone, "commit", "-q", "--allow-empty", "-m", "elsewhere");
            return replay(clone, recording.journal);
          },
        ],
        [
          "tree",
          (clone) =>
            replay(
              clone,
              edited(() => ({ tree: "0".repeat(40) })),
            ),
        ],
        [
          "tree",
          (clone) => {
            // An untracked file where the recording adds one: the commits verify, but cannot land without overwriting it.
            writeFileSync(join(clone, "data.bin"), "mine\n");
            return replay(clone, recording.journal);
          },
        ],
        [
          "commit",
          (clone) =>
            replay(
              clone,
              edited((commit) => ({ message: `${commit.message}forged\n` })),
            ),
        ],
        ["exhausted", (clone) => dispatch({ agent: used, repository: clone, sandboxProvider: localProvider(), logging: false })],
        [
          "unrecorded",
          (clone) => replay(clone, { ...recording.journal, complete: false, records: recording.journal.records.slice(0, cut - 1) }),
        ],
      ];
      for (const [kind, run] of cases) {
        const clone = freshClone();
        const prepared = run(clone);
        // The state to keep is the one the replay starts from (a case may change the clone first, synchronously).
        const before = repositoryState(clone);
        const error = await rejection(prepared);
        expect(error, kind).toBeInstanceOf(ReplayDivergence);
        expect((error as ReplayDivergence).kind, (error as Error).message).toBe(kind);
        expect((error as ReplayDivergence).code).toBe("replay");
        expect(repositoryState(clone), kind).toEqual(before);
      }
      expect(
        (await rejection(dispatch({ agent: used, repository: freshClone(), sandboxProvider: localProvider() }))) as Error,
      ).toHaveProperty("message", expect.stringContaining("already used"));
    }, 240_000);

    it("a journal edited with recomputed digests is refused by readJournal with the key, and caught by the commit ids without it", async () => {
      const transport = await forgedCopy();
      const refused = await rejection(readJournal({ transport, reference: recording.journal.reference.key, key: KEY }));
      expect(refused).toMatchObject({ code: "replay", message: expect.stringContaining("was altered") });
      const unsigned = await readJournal({ transport, reference: recording.journal.reference.key, key: "" });
      const clone = freshClone();
      const before = repositoryState(clone);
      const error = await rejection(replay(clone, unsigned));
      expect(error).toBeInstanceOf(ReplayDivergence);
      expect(error).toMatchObject({ kind: "commit", recorded: recording.result.commits[0] });
      expect(repositoryState(clone)).toEqual(before);
    });
  },
);

/** The journal copied into memory with the first commit's message changed, its segment digest and the chain recomputed. */
async function forgedCopy(): Promise<Transport> {
  const source = localJournalTransport(recording.repository);
  const transport = memoryTransport();
  const indexKey = recording.journal.reference.key;
  for await (const entry of source.list(indexKey.replace(/index\.json$/, "")))
    await transport.write(entry.key, (await source.read(entry.key))!.bytes, { ifRevision: null });
  const index = JSON.parse(new TextDecoder().decode((await transport.read(indexKey))!.bytes)) as {
    journalId: string;
    chain: string;
    segments: { key: string; bytes: number; sha256: string; chain: string }[];
  };
  const sha256 = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex");
  let chain = sha256(`outpost-journal-chain\n${index.journalId}`);
  let forged = false;
  for (const entry of index.segments) {
    const stored = (await transport.read(entry.key))!;
    const segment = JSON.parse(new TextDecoder().decode(stored.bytes)) as { records: { kind: string; commit?: { message: string } }[] };
    const commit = segment.records.find((record) => record.kind === "commit")?.commit;
    if (commit && !forged) {
      commit.message = commit.message.replace("Add hello.txt", "Add hello.txt (reviewed)");
      forged = true;
      const bytes = new TextEncoder().encode(JSON.stringify(segment));
      await transport.write(entry.key, bytes, { ifRevision: stored.revision });
      Object.assign(entry, { bytes: bytes.length, sha256: sha256(bytes) });
    }
    chain = sha256(`${chain}\n${entry.sha256}`);
    entry.chain = chain;
  }
  index.chain = chain;
  const current = (await transport.read(indexKey))!;
  await transport.write(indexKey, new TextEncoder().encode(JSON.stringify(index)), { ifRevision: current.revision });
  return transport;
}
