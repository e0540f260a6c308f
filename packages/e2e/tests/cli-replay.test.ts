import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Transport } from "@outpost/core";
import { localJournalTransport, readJournal, type Journal } from "@outpost/dispatch";
import { gitIn, scratchRepository } from "../src/index.js";
import { eventually, scriptAgentModule, startOutpost } from "./support/cli-process.js";

function outpost(args: readonly string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = startOutpost(args, cwd);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on("exit", (status) => done({ status, stdout, stderr })));
}

/** A scratch repository, and a bare copy of it taken before any run: where a replay starts again. */
function recordingSite(): { repository: string; clone: () => string } {
  const repository = scratchRepository();
  const source = mkdtempSync(join(tmpdir(), "outpost-replay-source-"));
  execFileSync("git", ["clone", "--quiet", "--bare", repository, source]);
  return {
    repository,
    clone: () => {
      const directory = mkdtempSync(join(tmpdir(), "outpost-replay-clone-"));
      execFileSync("git", ["clone", "--quiet", source, directory]);
      return directory;
    },
  };
}

async function journalKey(transport: Transport): Promise<string | undefined> {
  for await (const entry of transport.list("journals/")) if (entry.key.endsWith("/index.json")) return entry.key;
  return undefined;
}

const COMMIT_TWICE = [
  "printf 'one\\n' > one.txt && git add one.txt && git commit -q -m 'Add one.txt'",
  "printf 'two\\000\\377' > two.bin && git add two.bin && git commit -q -m 'Add two.bin'",
].join(" && ");

describe("outpost run --record, then outpost replay", () => {
  it("prints the journal reference; the replay rebuilds the same commits in a fresh clone, and reports divergences", async () => {
    const site = recordingSite();
    const { module } = scriptAgentModule({ SHELL: COMMIT_TWICE });
    const recorded = await outpost(
      ["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--record", "commit twice"],
      site.repository,
    );
    expect(recorded.status, recorded.stderr).toBe(0);
    const reference = /journal: (journals\/[^ ]+\/index\.json) \(replay with: outpost replay \1\)/.exec(recorded.stdout)?.[1];
    expect(reference, recorded.stdout).toBeDefined();
    const head = gitIn(site.repository, "rev-parse", "HEAD");

    const clone = site.clone();
    const replayed = await outpost(["replay", reference!, "--from", site.repository, "--provider", "local"], clone);
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain("outpost: running script-agent (replay) in a local sandbox");
    expect(replayed.stdout).toContain(`commits: ${gitIn(site.repository, "rev-parse", "HEAD~1").slice(0, 12)}, ${head.slice(0, 12)}`);
    expect(gitIn(clone, "rev-parse", "HEAD")).toBe(head);
    expect(gitIn(clone, "status", "--porcelain")).toBe("");

    // The recording's own checkout has moved past the baseline: fail stops, warn reports and goes on.
    const failed = await outpost(["replay", reference!], site.repository);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/outpost: replay: The repository starts at [0-9a-f]{40}, but the run was recorded from/);
    const warned = await outpost(["replay", reference!, "--from", site.repository, "--divergence", "warn", "--json"], site.clone());
    expect(warned.status, warned.stderr).toBe(0);
    const result = warned.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; commits?: string[] })
      .find((line) => line.type === "result");
    expect(result?.commits).toHaveLength(2);

    const missing = await outpost(["replay", "journals/nothing/index.json", "--provider", "local"], clone);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("outpost: replay: No journal index at journals/nothing/index.json");
  }, 180_000);

  it("a run killed mid-turn leaves a journal readable up to its last complete segment, which replays under warn", async () => {
    const site = recordingSite();
    const { module } = scriptAgentModule({ FILE: "kept.txt", MARKER: "never", HANG: "busy" });
    const child = startOutpost(
      ["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--record", "--json", "work"],
      site.repository,
    );
    const transport = localJournalTransport(site.repository);
    let journal: Journal | undefined;
    // The journal is the only one in this repository; its text event is written in a segment at most a second after it was seen.
    const written = await eventually(() => {
      void journalKey(transport)
        .then((key) => (key ? readJournal({ transport, reference: key }) : undefined))
        .then(
          (read) => (journal = read || journal),
          () => undefined,
        );
      return journal?.records.some((record) => record.kind === "event" && record.event.type === "text") === true;
    }, 600);
    expect(written).toBe(true);
    child.kill("SIGKILL");
    await new Promise((done) => child.once("exit", done));
    const cleaned = await outpost(["clean"], site.repository);
    expect(cleaned.status, cleaned.stderr).toBe(0);

    const reference = (await journalKey(transport))!;
    const read = await readJournal({ transport, reference });
    expect(read.complete).toBe(false);
    expect(read.state).toBe("recording");
    expect(read.records[0]).toMatchObject({ kind: "turn-start", pass: 1, prompt: "work" });
    expect(read.records.some((record) => record.kind === "turn-end")).toBe(false);
    const replayed = await outpost(["replay", reference, "--divergence", "warn", "--from", site.repository, "--json"], site.clone());
    expect(replayed.stderr).toBe("");
    const lines = replayed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; message?: string });
    expect(lines.some((line) => line.type === "warning" && line.message?.startsWith("Replay diverged (unrecorded)"))).toBe(true);
  }, 180_000);

  it("a journal from a newer index version, or truncated, is refused with code replay and a clear message; no progress hint to continue", async () => {
    const site = recordingSite();
    const { module } = scriptAgentModule({ SHELL: COMMIT_TWICE });
    const recorded = await outpost(
      ["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--record", "commit twice"],
      site.repository,
    );
    expect(recorded.status, recorded.stderr).toBe(0);
    const reference = /journal: (journals\/[^ ]+\/index\.json)/.exec(recorded.stdout)![1]!;
    // The replay's progress display shows the conversation, but no `--continue` hint: a replay stores no conversation.
    const replayed = await outpost(["replay", reference, "--from", site.repository, "--provider", "local"], site.clone());
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(replayed.stdout).not.toContain("--continue");

    // The local transport keeps each key as a file: <key's folders>.d/…/<name>.o under .outpost/storage/objects.
    const stored = (key: string) =>
      join(
        site.repository,
        ".outpost",
        "storage",
        "objects",
        ...key.split("/").map((part, index, parts) => (index < parts.length - 1 ? `${part}.d` : `${part}.o`)),
      );
    const indexFile = stored(reference);
    const original = readFileSync(indexFile, "utf8");
    writeFileSync(indexFile, JSON.stringify({ ...(JSON.parse(original) as object), version: 3 }));
    const newer = await outpost(["replay", reference, "--from", site.repository, "--provider", "local"], site.clone());
    expect(newer.status).toBe(1);
    expect(newer.stderr).toContain("outpost: replay: ");
    expect(newer.stderr).toContain("newer Outpost (index version 3; this one reads up to version 2)");

    writeFileSync(indexFile, original);
    rmSync(stored(reference.replace(/index\.json$/, "segment-000001.json")));
    const truncated = await outpost(["replay", reference, "--from", site.repository, "--provider", "local", "--json"], site.clone());
    expect(truncated.status).toBe(1);
    expect(JSON.parse(truncated.stdout.trim().split("\n").at(-1)!)).toMatchObject({ type: "error", code: "replay" });
    expect(truncated.stdout).toMatch(/truncated: segment 1 .* is missing/);
  }, 180_000);
});
