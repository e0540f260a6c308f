import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLAUDE_CREDENTIAL_FILES, claudeConversationStore, claudeProjectSlug } from "../src/index.js";
import { localProvider } from "@outpost/provider-local";
import { fixturePair, readTree, type FixturePair } from "@outpost/testkit";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/claude", import.meta.url));
const MARKER = "credential-marker-c1a0";
// The `<id>/` sidecar beside a transcript is captured whole: a credential in it must stay behind.
const PLANTED = [".credentials.json", "subagents/.env", "tool-results/id_rsa", "subagents/nested/auth.json", ".claude.json"];

describe("claudeConversationStore and credential files in a session's sidecar", () => {
  let pair: FixturePair;
  beforeEach(async () => {
    pair = await fixturePair(FIXTURE, { provider: (home) => localProvider({ home }) });
  });
  afterEach(async () => {
    await pair.dispose();
  });

  it("never captures them, and still captures the sidecar's own files", async () => {
    const { recording, source, target } = pair;
    const store = claudeConversationStore();
    const sidecar = join(recording.home, ".claude", "projects", claudeProjectSlug(recording.workspace), recording.id);
    for (const path of PLANTED) {
      await mkdir(dirname(join(sidecar, path)), { recursive: true });
      await writeFile(join(sidecar, path), `${MARKER} ${path}`);
    }
    await writeFile(join(sidecar, "subagents", "agent-1.jsonl"), "{}\n");
    const record = await store.capture(recording.id, source.context());
    const captured = await readTree(dirname(dirname(record.file)));
    expect(Object.values(captured).join("\n")).not.toContain(MARKER);
    expect(Object.keys(captured).some((path) => path.endsWith("subagents/agent-1.jsonl"))).toBe(true);
    // The filtered copy the host downloaded from is gone.
    expect(await readdir(source.lease.home)).not.toContain(".outpost-staging");
    await store.restore(record, target.context());
    const projects = join(target.lease.home, ".claude", "projects");
    const restored = await readTree(projects);
    expect(Object.values(restored).join("\n")).not.toContain(MARKER);
    expect(await readdir(projects)).toEqual([claudeProjectSlug(target.lease.root)]);
    expect(await readFile(join(projects, claudeProjectSlug(target.lease.root), recording.id, "subagents", "agent-1.jsonl"), "utf8")).toBe(
      "{}\n",
    );
  });

  it("lists the credential names explicitly", () => {
    for (const path of PLANTED) expect(CLAUDE_CREDENTIAL_FILES.test(path), path).toBe(true);
    for (const path of ["subagents/agent-1.jsonl", "tool-results/output.txt"]) expect(CLAUDE_CREDENTIAL_FILES.test(path), path).toBe(false);
  });
});
