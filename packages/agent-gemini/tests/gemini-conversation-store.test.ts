import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startModelServer } from "@outpost/testkit/model-server";
import { geminiConversationStore, geminiShortName } from "../src/index.js";
import { localProvider } from "@outpost/provider-local";
import { filesMentioning, fixturePair, readTree, type FixturePair } from "@outpost/testkit";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/gemini", import.meta.url));
const GEMINI = fileURLToPath(new URL("../../../node_modules/.bin/gemini", import.meta.url));
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("geminiShortName", () => {
  it("reuses the registered name, else slugs the last segment and skips names other projects hold", () => {
    expect(geminiShortName("/a/My Project", null)).toBe("my-project");
    expect(geminiShortName("/a/repo", JSON.stringify({ projects: { "/a/repo": "repo-7" } }))).toBe("repo-7");
    expect(geminiShortName("/b/repo", JSON.stringify({ projects: { "/a/repo": "repo", "/c/repo": "repo-1" } }))).toBe("repo-2");
    expect(geminiShortName("/", "not json")).toBe("project");
  });
});

describe("geminiConversationStore with a recorded Gemini CLI chat", () => {
  let pair: FixturePair;
  const store = geminiConversationStore();
  beforeEach(async () => {
    pair = await fixturePair(FIXTURE, { provider: (home) => localProvider({ home }) });
  });
  afterEach(async () => {
    await pair.dispose();
  });

  it("puts the chat under the new project's short name, registers it, and rewrites projectHash", async () => {
    const { recording, source, target } = pair;
    // Another project already registered in the target home must survive the restore.
    await mkdir(join(target.lease.home, ".gemini"), { recursive: true });
    await writeFile(join(target.lease.home, ".gemini", "projects.json"), JSON.stringify({ projects: { "/somewhere/project": "project" } }));
    const record = await store.capture(recording.id, source.context());
    await store.restore(await store.locate(recording.id, source.lease.root, source.context().home), target.context());

    const tree = await readTree(join(target.lease.home, ".gemini"));
    const chat = Object.keys(tree).find((path) => path.includes("/chats/"))!;
    expect(chat).toMatch(/^tmp\/project-1\/chats\/session-[^/]+-773b1bc5\.jsonl$/);
    expect(Object.keys(tree).sort()).toEqual(
      ["history/project-1/.project_root", chat, "projects.json", "tmp/project-1/.project_root"].sort(),
    );
    expect(JSON.parse(tree["projects.json"]!)).toEqual({ projects: { "/somewhere/project": "project", [target.lease.root]: "project-1" } });
    expect(tree["tmp/project-1/.project_root"]).toBe(target.lease.root);

    const header = JSON.parse(tree[chat]!.split("\n")[0]!) as { sessionId: string; projectHash: string };
    expect(header).toMatchObject({ sessionId: recording.id, projectHash: sha256(target.lease.root) });
    expect(tree[chat]).toContain(target.lease.root);
    expect(await filesMentioning(target.lease.home, [source.base, "/tmp/outpost-fixture", sha256(recording.workspace)])).toEqual([]);
    expect(store.destination(recording.id, target.lease, record.file)).toMatch(
      /\/\.gemini\/tmp\/project\/chats\/session-.+-773b1bc5\.jsonl$/,
    );
  });

  it("finds the chat by its full id, not only the 8-character prefix in the file name", async () => {
    const { recording, source } = pair;
    const chats = join(recording.home, ".gemini", "tmp", "repo", "chats");
    const [name] = Object.keys(await readTree(chats));
    const twin = JSON.stringify({ sessionId: `${recording.id.slice(0, 8)}-0000-0000-0000-000000000000`, projectHash: "x", kind: "main" });
    await writeFile(join(chats, name!.replace(/session-[^-]+/, "session-2020")), `${twin}\n`);
    const record = await store.capture(recording.id, source.context());
    expect(JSON.parse((await readFile(record.file, "utf8")).split("\n")[0]!).sessionId).toBe(recording.id);
  });

  it("honours GEMINI_CLI_HOME, which replaces the home the CLI puts .gemini in", async () => {
    const { recording, source } = pair;
    const { mkdtemp, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { localProvider } = await import("@outpost/provider-local");
    const base = await mkdtemp(join(tmpdir(), "outpost-gemini-home-"));
    await mkdir(join(base, "w"));
    // Under the lease home: a transfer may only name paths under the lease root or home.
    const lease = await localProvider({ home: join(base, "home") }).acquire({
      repository: join(base, "w"),
      directory: join(base, "w"),
      gitDirectories: [],
      variables: { GEMINI_CLI_HOME: join(base, "home", "gh") },
    });
    try {
      await store.restore(await store.capture(recording.id, source.context()), {
        repository: lease.root,
        sandbox: lease,
        staging: join(base, "staging"),
      });
      const tree = Object.keys(await readTree(join(base, "home", "gh", ".gemini")));
      expect(tree.some((path) => /^tmp\/w\/chats\/session-.+-773b1bc5\.jsonl$/.test(path))).toBe(true);
      expect(tree).toContain("projects.json");
    } finally {
      await lease.release();
      await rm(base, { recursive: true, force: true });
    }
  });

  it("continues the chat with the real gemini CLI after the move", async () => {
    const { recording, source, target } = pair;
    await store.restore(await store.capture(recording.id, source.context()), target.context());
    const server = await startModelServer();
    try {
      await writeFile(
        join(target.lease.home, ".gemini", "settings.json"),
        JSON.stringify({
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
        }),
      );
      const result = await target.lease.invoke({
        executable: GEMINI,
        arguments: [
          "-p",
          "TURN2: what did you do?",
          "--output-format",
          "stream-json",
          "--yolo",
          "-m",
          "gemini-2.5-flash",
          "--resume",
          recording.id,
        ],
        variables: { GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_API_KEY: "fake-key", GEMINI_CLI_NO_RELAUNCH: "true" },
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
