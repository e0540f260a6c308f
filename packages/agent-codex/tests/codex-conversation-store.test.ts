import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { localProvider } from "@outpost/provider-local";
import { startModelServer } from "@outpost/testkit/model-server";
import { codexConversationStore } from "../src/index.js";
import { filesMentioning, fixturePair, readTree, type FixturePair } from "@outpost/testkit";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/codex", import.meta.url));
const CODEX = fileURLToPath(new URL("../../../node_modules/.bin/codex", import.meta.url));

describe("codexConversationStore with a recorded Codex rollout", () => {
  let pair: FixturePair;
  const store = codexConversationStore();
  beforeEach(async () => {
    pair = await fixturePair(FIXTURE, { provider: (home) => localProvider({ home }) });
  });
  afterEach(async () => {
    await pair.dispose();
  });

  const rolloutOf = async (home: string) => Object.keys(await readTree(join(home, ".codex", "sessions")));

  it("keeps the date folders and file name, and moves the workspace and home paths", async () => {
    const { recording, source, target } = pair;
    const [relative] = await rolloutOf(recording.home);
    // Credentials, history and the SQLite state codex rebuilds are never captured.
    for (const name of ["auth.json", "history.jsonl", "state_5.sqlite"]) await writeFile(join(recording.home, ".codex", name), "secret");
    const record = await store.capture(recording.id, source.context());
    expect(Object.keys(await readTree(join(source.context().home!, ".outpost", "conversations", "codex", recording.id)))).toEqual(
      ["files/" + relative, "origin.json"].sort(),
    );
    await store.restore(await store.locate(recording.id, source.lease.root, source.context().home), target.context());
    expect(await rolloutOf(target.lease.home)).toEqual([relative]);
    expect(relative).toMatch(/^\d{4}\/\d{2}\/\d{2}\/rollout-.+-01a23662-c293-73d2-8ce8-928ce6fb5c1b\.jsonl$/);
    expect(store.destination(recording.id, target.lease, record.file)).toBe(join(target.lease.home, ".codex", "sessions", relative!));

    const original = await readFile(join(recording.home, ".codex", "sessions", relative!), "utf8");
    const restored = await readFile(join(target.lease.home, ".codex", "sessions", relative!), "utf8");
    expect(restored).toBe(original.split(recording.workspace).join(target.lease.root).split(recording.home).join(target.lease.home));
    const meta = JSON.parse(restored.split("\n")[0]!) as { payload: { cwd: string; runtime_workspace_roots: string[] } };
    expect(meta.payload.cwd).toBe(target.lease.root);
    expect(meta.payload.runtime_workspace_roots).toEqual([target.lease.root]);
    expect(restored).toContain(`<cwd>${target.lease.root}</cwd>`);
    expect(await filesMentioning(target.lease.home, [source.base, "/tmp/outpost-fixture"])).toEqual([]);
  });

  it("honours CODEX_HOME in the sandbox it restores into", async () => {
    const { recording, source } = pair;
    const base = await mkdtemp(join(tmpdir(), "outpost-codex-home-"));
    // Under the lease home: a transfer may only name paths under the lease root or home.
    const codexHome = join(base, "home", "codex-state");
    await mkdir(join(base, "w"));
    const lease = await localProvider({ home: join(base, "home") }).acquire({
      repository: join(base, "w"),
      directory: join(base, "w"),
      gitDirectories: [],
      variables: { CODEX_HOME: codexHome },
    });
    try {
      await store.restore(await store.capture(recording.id, source.context()), {
        repository: lease.root,
        sandbox: lease,
        staging: join(base, "staging"),
      });
      const restored = Object.keys(await readTree(join(codexHome, "sessions")));
      expect(restored).toHaveLength(1);
      expect(await readTree(lease.home).then((tree) => Object.keys(tree).filter((path) => path.startsWith(".codex")))).toEqual([]);
      // And captures from there again.
      const again = await store.capture(recording.id, {
        repository: lease.root,
        sandbox: lease,
        staging: join(base, "staging"),
        home: join(base, "host"),
      });
      expect(again.file).toContain(restored[0]!);
    } finally {
      await lease.release();
      await rm(base, { recursive: true, force: true });
    }
  });

  it("continues the thread with the real codex CLI after the move", async () => {
    const { recording, source, target } = pair;
    await store.restore(await store.capture(recording.id, source.context()), target.context());
    const server = await startModelServer();
    try {
      await writeFile(
        join(target.lease.home, ".codex", "config.toml"),
        `model = "gpt-5.5"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n[analytics]\nenabled = false\n[features]\nplugins = false\n` +
          `[model_providers.fake]\nname = "Fake"\nbase_url = "${server.url}/v1"\nenv_key = "FAKE_API_KEY"\nwire_api = "responses"\n`,
      );
      const result = await target.lease.invoke({
        executable: CODEX,
        arguments: [
          "exec",
          "--json",
          "--skip-git-repo-check",
          "--dangerously-bypass-approvals-and-sandbox",
          "resume",
          recording.id,
          "TURN2: what did you do?",
        ],
        variables: { FAKE_API_KEY: "fake-key" },
        stdin: "",
        deadlineMs: 120_000,
      });
      expect(result.stdout).toContain("MARKER_TURN2_DONE history_has_turn1=true");
      expect(result.status).toBe(0);
      expect(
        server
          .turns()
          .map((request) => request.body)
          .join("\n"),
      ).not.toContain(source.base);
    } finally {
      await server.close();
    }
  }, 150_000);
});
