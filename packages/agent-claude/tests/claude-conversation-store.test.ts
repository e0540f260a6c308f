import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { startModelServer } from "@outpost/testkit/model-server";
import { claudeConversationStore, claudeProjectSlug } from "../src/index.js";
import { localProvider } from "@outpost/provider-local";
import { filesMentioning, fixturePair, readTree, type FixturePair } from "@outpost/testkit";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/claude", import.meta.url));
const CLAUDE = fileURLToPath(new URL("../../../node_modules/.bin/claude", import.meta.url));

describe("claudeProjectSlug", () => {
  it("replaces every non-alphanumeric character, and cuts and hashes slugs past 200 characters as claude does", () => {
    expect(claudeProjectSlug("/work/my repo.v2")).toBe("-work-my-repo-v2");
    // Folder name claude 2.1.332 created for this 277-character cwd.
    const long = `/tmp/outpost-longslug/${"very-long-directory-name-".repeat(10)}/repo`;
    expect(claudeProjectSlug(long)).toBe(`-tmp-outpost-longslug-${"very-long-directory-name-".repeat(7)}ver-ll12qp`);
  });
});

describe("claudeConversationStore with a recorded Claude Code session", () => {
  let pair: FixturePair;
  const store = claudeConversationStore();
  beforeEach(async () => {
    pair = await fixturePair(FIXTURE, { provider: (home) => localProvider({ home }) });
  });
  afterEach(async () => {
    await pair.dispose();
  });

  it("restores the transcript under the slug of another workspace, in another home, with every path moved", async () => {
    const { recording, source, target } = pair;
    const id = recording.id;
    const record = await store.capture(id, source.context());
    const hostHome = source.context().home!;
    expect(record.file).toBe(
      join(hostHome, ".outpost", "conversations", "claude", id, "files", claudeProjectSlug(recording.workspace), `${id}.jsonl`),
    );

    const located = await store.locate(id, source.lease.root, hostHome);
    expect(located).toEqual(record);
    await store.restore(located, target.context());

    const destination = join(target.lease.home, ".claude", "projects", claudeProjectSlug(target.lease.root), `${id}.jsonl`);
    expect(store.destination(id, target.lease, record.file)).toBe(destination);
    expect(Object.keys(await readTree(join(target.lease.home, ".claude")))).toEqual([
      `projects/${claudeProjectSlug(target.lease.root)}/${id}.jsonl`,
    ]);

    const original = await readFile(
      join(recording.home, ".claude", "projects", claudeProjectSlug(recording.workspace), `${id}.jsonl`),
      "utf8",
    );
    const restored = await readFile(destination, "utf8");
    // Exactly the recorded bytes with the three recorded names moved: nothing else changed.
    const expected = original
      .split(recording.workspace)
      .join(target.lease.root)
      .split(recording.home)
      .join(target.lease.home)
      .split(claudeProjectSlug(recording.workspace))
      .join(claudeProjectSlug(target.lease.root));
    expect(restored).toBe(expected);
    const records = restored
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { cwd?: string; sessionId?: string });
    expect(records.filter((line) => line.cwd !== undefined).every((line) => line.cwd === target.lease.root)).toBe(true);
    expect(records.some((line) => line.cwd !== undefined)).toBe(true);
    expect(await filesMentioning(target.lease.home, [source.base, "/tmp/outpost-fixture"])).toEqual([]);
  });

  it("continues the conversation with the real claude CLI after the move", async () => {
    const { recording, source, target } = pair;
    await store.restore(await store.capture(recording.id, source.context()), target.context());
    const server = await startModelServer();
    try {
      const result = await target.lease.invoke({
        executable: CLAUDE,
        arguments: [
          "-p",
          "TURN2: what did you do?",
          "--output-format",
          "stream-json",
          "--verbose",
          "--dangerously-skip-permissions",
          "--resume",
          recording.id,
        ],
        variables: {
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: "sk-ant-fake-key",
          IS_SANDBOX: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_ERROR_REPORTING: "1",
          DISABLE_AUTOUPDATER: "1",
        },
        deadlineMs: 120_000,
      });
      expect(result.stderr + result.stdout).toContain("MARKER_TURN2_DONE history_has_turn1=true");
      expect(result.status).toBe(0);
      const requests = server
        .turns()
        .map((request) => request.body)
        .join("\n");
      expect(requests).not.toContain(source.base);
    } finally {
      await server.close();
    }
  }, 150_000);

  it("captures the sidecar folder and refuses links in it", async () => {
    const { recording, source, target } = pair;
    const { mkdir, writeFile, symlink } = await import("node:fs/promises");
    const sidecar = join(recording.home, ".claude", "projects", claudeProjectSlug(recording.workspace), recording.id, "subagents");
    await mkdir(sidecar, { recursive: true });
    await writeFile(join(sidecar, "agent-1.jsonl"), `${JSON.stringify({ cwd: recording.workspace })}\n`);
    await store.restore(await store.capture(recording.id, source.context()), target.context());
    const restored = join(
      target.lease.home,
      ".claude",
      "projects",
      claudeProjectSlug(target.lease.root),
      recording.id,
      "subagents",
      "agent-1.jsonl",
    );
    expect(JSON.parse(await readFile(restored, "utf8"))).toEqual({ cwd: target.lease.root });

    await symlink("/etc/passwd", join(sidecar, "leak"));
    const error = await store.capture(recording.id, source.context()).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "workspace")).toBe(true);
    expect((error as Error).message).toMatch(/symbolic link/);
  });

  it("refuses a missing conversation and an unsafe id", async () => {
    const { source } = pair;
    const missing = await store.capture("00000000-0000-0000-0000-000000000000", source.context()).catch((caught: unknown) => caught);
    expect(isOutpostError(missing, "session")).toBe(true);
    const unsafe = await store.locate("../../etc", source.lease.root).catch((caught: unknown) => caught);
    expect(isOutpostError(unsafe, "session")).toBe(true);
    await expect(access(join(source.lease.root, ".outpost"))).rejects.toThrow();
  });
});
