import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { COPILOT_CREDENTIAL_FILES, copilotConversationStore } from "../src/index.js";
import { localProvider } from "@outpost/provider-local";
import { fixturePair, readTree, type FixturePair } from "@outpost/testkit";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/copilot", import.meta.url));
const MARKER = "credential-marker-3d9f";
// Inside the folders Copilot's profile captures whole, where an agent's own files land.
const PLANTED = [
  "files/.env",
  "files/deploy/id_ed25519",
  "research/credentials.json",
  "checkpoints/hosts.json",
  "rewind-file-snapshots/server.pem",
  "files/credentials/token",
  "files/.env.production",
];

describe("copilotConversationStore and credential files in a session folder", () => {
  let pair: FixturePair;
  beforeEach(async () => {
    pair = await fixturePair(FIXTURE, { provider: (home) => localProvider({ home }) });
  });
  afterEach(async () => {
    await pair.dispose();
  });

  it("never captures them, and still captures and restores the session", async () => {
    const { recording, source, target } = pair;
    const store = copilotConversationStore();
    const folder = join(recording.home, ".copilot", "session-state", recording.id);
    for (const path of PLANTED) {
      await mkdir(dirname(join(folder, path)), { recursive: true });
      await writeFile(join(folder, path), `${MARKER} ${path}`);
    }
    await writeFile(join(folder, "files", "notes.md"), "kept");
    const record = await store.capture(recording.id, source.context());
    const bundle = await readFile(record.file, "utf8");
    expect(bundle).not.toContain(MARKER);
    expect(bundle).toContain("files/notes.md");
    await store.restore(await store.locate(recording.id, source.lease.root, source.context().home), target.context());
    const tree = await readTree(join(target.lease.home, ".copilot", "session-state", recording.id));
    expect(tree["files/notes.md"]).toBe("kept");
    expect(Object.values(tree).join("\n")).not.toContain(MARKER);
  });

  it("refuses a bundle that carries one, when it is located", async () => {
    const { recording, source } = pair;
    const store = copilotConversationStore();
    const record = await store.capture(recording.id, source.context());
    const bundle = JSON.parse(await readFile(record.file, "utf8")) as {
      files: { path: string; mode: number; encoding: string; data: string }[];
    };
    bundle.files.push({ path: "files/.env", mode: 0o600, encoding: "utf8", data: `TOKEN=${MARKER}` });
    await writeFile(record.file, JSON.stringify(bundle));
    const error = await store.locate(recording.id, source.lease.root, source.context().home).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isOutpostError(error, "session"), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/files\/\.env.* is not a file this format captures/);
  });

  it("lists the credential names explicitly", () => {
    for (const path of PLANTED) expect(COPILOT_CREDENTIAL_FILES.test(path), path).toBe(true);
    for (const path of ["events.jsonl", "files/notes.md", "files/envelope.txt", "research/key-points.md"])
      expect(COPILOT_CREDENTIAL_FILES.test(path), path).toBe(false);
  });
});
