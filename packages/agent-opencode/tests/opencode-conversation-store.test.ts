import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SandboxLease } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { opencodeConversationStore } from "../src/index.js";
import { localProvider } from "@outpost/provider-local";
import { fixturePair, type FixturePair } from "@outpost/testkit";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/opencode", import.meta.url));
const OPENCODE = fileURLToPath(new URL("../../../node_modules/.bin/opencode", import.meta.url));
const QUIET = {
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  OPENCODE_DISABLE_SHARE: "1",
};

async function opencode(lease: SandboxLease, ...args: string[]) {
  const result = await lease.invoke({
    executable: OPENCODE,
    arguments: args,
    variables: QUIET,
    deadlineMs: 120_000,
    retain: 16 * 1024 * 1024,
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

interface Export {
  info: { id: string; directory: string };
  messages: { info: { path?: { cwd: string; root: string } }; parts: unknown[] }[];
}

describe("opencodeConversationStore with a recorded opencode session", () => {
  let pair: FixturePair;
  let id: string;
  const store = opencodeConversationStore({ executable: OPENCODE });
  beforeEach(async () => {
    pair = await fixturePair(FIXTURE, { provider: (home) => localProvider({ home }) });
    id = pair.recording.id;
    // Put the recorded session into the source sandbox's database, as if it had run there.
    const recorded = await readFile(join(FIXTURE, "export", `${id}.json`), "utf8");
    const file = join(pair.source.base, "seed", "export.json");
    await mkdir(join(pair.source.base, "seed"), { recursive: true });
    await writeFile(file, recorded.split("/tmp/outpost-fixture").join(pair.source.base));
    await opencode(pair.source.lease, "import", file);
  }, 120_000);
  afterEach(async () => {
    await pair.dispose();
  });

  it("exports in one sandbox and imports into another home and workspace with every path moved", async () => {
    const { source, target } = pair;
    const record = await store.capture(id, source.context());
    expect(record.file).toBe(join(source.context().home!, ".outpost", "conversations", "opencode", id, "export.json"));
    await store.restore(await store.locate(id, source.lease.root, source.context().home), target.context());

    const exported = await opencode(target.lease, "export", id);
    const session = JSON.parse(exported.slice(exported.indexOf("{"))) as Export;
    expect(session.info.id).toBe(id);
    expect(session.info.directory).toBe(target.lease.root);
    const paths = session.messages.map((message) => message.info.path).filter((path) => path !== undefined);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((path) => path.cwd === target.lease.root)).toBe(true);
    expect(exported).not.toContain(source.base);
    expect(exported).toContain(`${target.lease.root}/hello.txt`);
    expect(store.destination(id, target.lease, record.file)).toBe(join(target.lease.home, ".local", "share", "opencode", "opencode.db"));
  }, 120_000);

  it("refuses an export that is not the session it claims to be, and a session opencode does not know", async () => {
    const { source, target } = pair;
    const record = await store.capture(id, source.context());
    await writeFile(record.file, JSON.stringify({ info: { id: "ses_other" }, messages: [] }));
    const wrong = await store.restore(record, target.context()).catch((caught: unknown) => caught);
    expect(isOutpostError(wrong, "session")).toBe(true);
    await writeFile(record.file, "{ not json");
    const corrupt = await store.locate(id, source.lease.root, source.context().home).catch((caught: unknown) => caught);
    expect(isOutpostError(corrupt, "session")).toBe(true);
    const missing = await store.capture("ses_doesnotexist000000000", source.context()).catch((caught: unknown) => caught);
    expect(isOutpostError(missing, "session")).toBe(true);
  }, 120_000);
});
