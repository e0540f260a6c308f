import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KIMI_CREDENTIAL_FILES, kimiConversationStore } from "../src/index.js";
import { localProvider } from "@outpost/provider-local";
import { fixturePair, readTree, type FixturePair } from "@outpost/testkit";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/kimi", import.meta.url));
const MARKER = "credential-marker-7b21";
// Kimi's session folder is captured whole: a credential anywhere in it must stay behind.
const PLANTED = [
  "credentials/kimi-code.json",
  "config.toml",
  "oauth.json",
  ".env",
  "agents/main/.netrc",
  "agents/explore-1/auth.json",
  "tools/id_rsa",
  "agents/main/client.key",
];
const bucketOf = (cwd: string) => `wd_repo_${createHash("sha256").update(cwd).digest("hex").slice(0, 12)}`;

describe("kimiConversationStore and credential files in a session folder", () => {
  let pair: FixturePair;
  beforeEach(async () => {
    pair = await fixturePair(FIXTURE, { provider: (home) => localProvider({ home }) });
  });
  afterEach(async () => {
    await pair.dispose();
  });

  it("never captures them, and still captures and restores the session", async () => {
    const { recording, source, target } = pair;
    const store = kimiConversationStore();
    const folder = join(recording.home, ".kimi-code", "sessions", bucketOf(recording.workspace), recording.id);
    for (const path of PLANTED) {
      await mkdir(dirname(join(folder, path)), { recursive: true });
      await writeFile(join(folder, path), `${MARKER} ${path}`);
    }
    const record = await store.capture(recording.id, source.context());
    const bundle = await readFile(record.file, "utf8");
    expect(bundle).not.toContain(MARKER);
    expect(bundle).toContain("agents/main/wire.jsonl");
    await store.restore(await store.locate(recording.id, source.lease.root, source.context().home), target.context());
    const restored = await readTree(join(target.lease.home, ".kimi-code", "sessions"));
    expect(Object.keys(restored).some((path) => path.endsWith("agents/main/wire.jsonl"))).toBe(true);
    expect(Object.values(restored).join("\n")).not.toContain(MARKER);
  });

  it("lists the credential names explicitly", () => {
    for (const path of PLANTED) expect(KIMI_CREDENTIAL_FILES.test(path), path).toBe(true);
    for (const path of ["state.json", "agents/main/wire.jsonl", "agents/main/keys.md", "environment.json"])
      expect(KIMI_CREDENTIAL_FILES.test(path), path).toBe(false);
  });
});
