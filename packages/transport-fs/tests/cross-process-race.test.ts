import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { fsTransport } from "../src/index.js";

const CHILD = fileURLToPath(new URL("./fixtures/race-child.ts", import.meta.url));
const CHILDREN = 6;

interface Racer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly ready: Promise<void>;
  readonly result: Promise<Record<string, string>>;
}

function startRacer(directory: string, mode: "create" | "increment", id: number, rounds: number): Racer {
  // Real Node processes, running the TypeScript sources through tsx.
  const child = spawn(
    process.execPath,
    ["--conditions=outpost-source", "--import", "tsx", CHILD, directory, mode, String(id), String(rounds)],
    {
      cwd: fileURLToPath(new URL("../", import.meta.url)),
    },
  );
  let stdout = "";
  let stderr = "";
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith("ready\n")) markReady();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const result = new Promise<Record<string, string>>((resolve, reject) => {
    child.on("close", (status) => {
      const line = stdout.split("\n").find((candidate) => candidate.startsWith("{"));
      if (status !== 0 || !line) reject(new Error(`racer ${id} exited ${status}: ${stderr}`));
      else resolve(JSON.parse(line) as Record<string, string>);
    });
  });
  return { child, ready, result };
}

async function race(directory: string, mode: "create" | "increment", rounds: number): Promise<Record<string, string>[]> {
  const racers = Array.from({ length: CHILDREN }, (_, id) => startRacer(directory, mode, id, rounds));
  await Promise.all(racers.map((racer) => racer.ready));
  for (const racer of racers) racer.child.stdin.end("go\n");
  return Promise.all(racers.map((racer) => racer.result));
}

describe("fsTransport across processes", () => {
  let directory = "";
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it(`${CHILDREN} processes racing create-only writes on the same keys: exactly one winner per key`, async () => {
    directory = await mkdtemp(join(tmpdir(), "outpost-fs-race-"));
    const rounds = 30;
    const results = await race(directory, "create", rounds);
    const transport = fsTransport({ directory });
    for (let round = 0; round < rounds; round += 1) {
      const winners = results.flatMap((outcomes, id) =>
        outcomes[round]?.startsWith("won ") ? [{ id, revision: outcomes[round]?.slice(4) }] : [],
      );
      expect(winners, `round ${round}`).toHaveLength(1);
      expect(results.filter((outcomes) => outcomes[round] === "conflict")).toHaveLength(CHILDREN - 1);
      const stored = await transport.read(`race/${round}.txt`);
      expect(new TextDecoder().decode(stored?.bytes)).toBe(`child ${winners[0]?.id}`);
      expect(stored?.revision).toBe(winners[0]?.revision);
    }
  }, 120_000);

  it(`${CHILDREN} processes incrementing one counter with compare-and-swap lose no update`, async () => {
    directory = await mkdtemp(join(tmpdir(), "outpost-fs-race-"));
    const rounds = 15;
    const results = await race(directory, "increment", rounds);
    const stored = await fsTransport({ directory }).read("counter.txt");
    expect(new TextDecoder().decode(stored?.bytes)).toBe(String(CHILDREN * rounds));
    // The race was real: at least one write lost to another process and had to retry.
    expect(results.reduce((sum, outcomes) => sum + Number(outcomes.conflicts), 0)).toBeGreaterThan(0);
  }, 120_000);
});
