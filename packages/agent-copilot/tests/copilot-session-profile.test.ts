import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { startModelServer } from "@outpost/testkit/model-server";
import { copilotConversationStore } from "../src/index.js";
import { localProvider } from "@outpost/provider-local";
import { filesMentioning, fixturePair, readTree, type FixturePair } from "@outpost/testkit";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/copilot", import.meta.url));
const COPILOT = fileURLToPath(new URL("../../../node_modules/.bin/copilot", import.meta.url));
const hex = (text: string) => Buffer.from(text, "utf8").toString("hex");

describe("copilotConversationStore with a recorded Copilot CLI session", () => {
  let pair: FixturePair;
  const store = copilotConversationStore();
  beforeEach(async () => {
    pair = await fixturePair(FIXTURE, { provider: (home) => localProvider({ home }) });
  });
  afterEach(async () => {
    await pair.dispose();
  });
  const sessionOf = (home: string, id: string) => join(home, ".copilot", "session-state", id);

  it("restores the session folder without locks, with workspace.yaml, events and hex-encoded snapshot paths moved", async () => {
    const { recording, source, target } = pair;
    // The recorded hex path and path-hash key were written for the recording's workspace: redo them for the
    // moved fixture.
    const indexFile = join(sessionOf(recording.home, recording.id), "rewind-file-snapshots", "index.json");
    const recordedIndex = await readFile(indexFile, "utf8");
    const keyOf = (path: string) => createHash("sha256").update(path).digest("hex").slice(0, 32);
    await writeFile(
      indexFile,
      recordedIndex
        .split(hex("/tmp/outpost-fixture/work/repo"))
        .join(hex(recording.workspace))
        .split(keyOf("/tmp/outpost-fixture/work/repo/hello.txt"))
        .join(keyOf(`${recording.workspace}/hello.txt`)),
    );

    // Credentials, caches and indexes next to the session are never captured.
    const { mkdir } = await import("node:fs/promises");
    await writeFile(join(sessionOf(recording.home, recording.id), "auth.json"), '{"token":"tok_outpost_credential_123"}');
    await mkdir(join(sessionOf(recording.home, recording.id), "node_modules", "x"), { recursive: true });
    await writeFile(join(sessionOf(recording.home, recording.id), "node_modules", "x", "index.js"), "");
    await writeFile(join(recording.home, ".copilot", "session-store.db"), "SQLite format 3");
    const record = await store.capture(recording.id, source.context());
    expect(await readFile(record.file, "utf8")).not.toContain("tok_outpost_credential_123");
    await store.restore(await store.locate(recording.id, source.lease.root, source.context().home), target.context());
    const restoredFolder = sessionOf(target.lease.home, recording.id);
    expect(store.destination(recording.id, target.lease, record.file)).toBe(restoredFolder);

    const tree = await readTree(restoredFolder);
    expect(Object.keys(tree).sort()).toEqual([
      "checkpoints/index.md",
      "events.jsonl",
      "rewind-file-snapshots/index.json",
      "rewind-file-snapshots/tracking.json",
      "workspace.yaml",
    ]);
    expect(tree["workspace.yaml"]).toContain(`cwd: ${target.lease.root}\n`);
    expect(tree["workspace.yaml"]).toContain(`git_root: ${target.lease.root}\n`);
    const start = JSON.parse(tree["events.jsonl"]!.split("\n")[0]!) as { type: string; data: { context: { cwd: string } } };
    expect(start.type).toBe("session.start");
    expect(start.data.context.cwd).toBe(target.lease.root);

    const index = JSON.parse(tree["rewind-file-snapshots/index.json"]!) as {
      snapshots: { files: Record<string, { path: string; postimage: { resolvedPath: string; encodedPath: { data: string } } }> }[];
    };
    const [key, file] = Object.entries(index.snapshots[0]!.files)[0]!;
    expect(key).toBe(createHash("sha256").update(`${target.lease.root}/hello.txt`).digest("hex").slice(0, 32));
    expect(file.path).toBe(`${target.lease.root}/hello.txt`);
    expect(file.postimage.resolvedPath).toBe(`${target.lease.root}/hello.txt`);
    expect(Buffer.from(file.postimage.encodedPath.data, "hex").toString("utf8")).toBe(`${target.lease.root}/hello.txt`);
    expect(await filesMentioning(target.lease.home, [source.base, "/tmp/outpost-fixture", hex(source.base)])).toEqual([]);
  });

  it("refuses to capture a session whose workspace.yaml belongs to another id", async () => {
    const { recording, source } = pair;
    const yaml = join(sessionOf(recording.home, recording.id), "workspace.yaml");
    const original = await readFile(yaml, "utf8");
    await writeFile(yaml, original.replace(/^id: .*$/m, "id: someone-else"));
    const error = await store.capture(recording.id, source.context()).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "session")).toBe(true);
    expect((error as Error).message).toMatch(/belongs to session someone-else/);
  });

  it("continues the session with the real copilot CLI in the new workspace", async () => {
    const { recording, source, target } = pair;
    await store.restore(await store.capture(recording.id, source.context()), target.context());
    const server = await startModelServer();
    try {
      const result = await target.lease.invoke({
        executable: COPILOT,
        arguments: [
          "-p",
          "TURN2: what did you do?",
          "--allow-all-tools",
          "--output-format",
          "json",
          "--disable-client-telemetry",
          "--resume",
          recording.id,
        ],
        variables: {
          COPILOT_OFFLINE: "true",
          COPILOT_AUTO_UPDATE: "false",
          COPILOT_PROVIDER_BASE_URL: `${server.url}/v1`,
          COPILOT_PROVIDER_TYPE: "openai",
          COPILOT_PROVIDER_API_KEY: "fake-key",
          COPILOT_MODEL: "fake-model",
          XDG_CACHE_HOME: "/tmp/outpost-copilot-cache",
        },
        deadlineMs: 120_000,
      });
      expect(result.stdout).toContain("MARKER_TURN2_DONE history_has_turn1=true");
      expect(result.status).toBe(0);
      const bodies = server
        .turns()
        .map((request) => request.body)
        .join("\n");
      expect(bodies).toContain(target.lease.root);
      expect(bodies).not.toContain(source.base);
    } finally {
      await server.close();
    }
  }, 150_000);
});
