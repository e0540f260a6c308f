import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SandboxLease } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { kimiConversationStore, kimiSessionProfile } from "../src/index.js";
import { filesMentioning, fixturePair, readTree, type FixturePair } from "@outpost/testkit";

// Built from the published layout: no Kimi CLI can be installed here (see recording.json).
const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/kimi", import.meta.url));
const bucketOf = (cwd: string, slug: string) => `wd_${slug}_${createHash("sha256").update(cwd).digest("hex").slice(0, 12)}`;

async function expectCode(promise: Promise<unknown>, code: string, text: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isOutpostError(error, code as never), String(error)).toBe(true);
  expect((error as Error).message).toMatch(text);
}

describe("kimiSessionProfile", () => {
  it("names buckets wd_<slug>_<12 hex of sha256(normalized cwd)>", () => {
    const store = kimiConversationStore();
    const at = (root: string) => store.destination("s1", { root, home: "/h" } as SandboxLease, "");
    expect(at("/w/repo")).toBe(`/h/.kimi-code/sessions/${bucketOf("/w/repo", "repo")}/s1`);
    expect(at("/w/My Repo!!/")).toBe(`/h/.kimi-code/sessions/${bucketOf("/w/My Repo!!", "myrepo")}/s1`);
    expect(at("/w/x/../Ünï")).toBe(`/h/.kimi-code/sessions/${bucketOf("/w/Ünï", "n")}/s1`);
    expect(at("/")).toBe(`/h/.kimi-code/sessions/${bucketOf("/", "workspace")}/s1`);
    expect(at(`/w/${"a".repeat(60)}`)).toBe(`/h/.kimi-code/sessions/${bucketOf(`/w/${"a".repeat(60)}`, "a".repeat(40))}/s1`);
  });

  it("has no g or y flags and requires state.json and the main wire", () => {
    expect(kimiSessionProfile.include.flags).not.toMatch(/[gy]/);
    expect(kimiSessionProfile.required).toEqual(["state.json", "agents/main/wire.jsonl"]);
  });
});

describe("kimiConversationStore with a Kimi Code session", () => {
  let pair: FixturePair;
  const store = kimiConversationStore();
  const sessions = (home: string) => join(home, ".kimi-code", "sessions");
  beforeEach(async () => {
    pair = await fixturePair(FIXTURE, { provider: (home) => localProvider({ home }) });
  });
  afterEach(async () => {
    await pair.dispose();
  });
  const folder = () => join(sessions(pair.recording.home), bucketOf(pair.recording.workspace, "repo"), pair.recording.id);

  it("captures the conversation files only and restores them into the target workspace's bucket", async () => {
    const { recording, source, target } = pair;
    const record = await store.capture(recording.id, source.context());
    const bundle = JSON.parse(await readFile(record.file, "utf8")) as { bucket: string; files: { path: string }[] };
    expect(bundle.bucket).toBe(bucketOf(recording.workspace, "repo"));
    expect(bundle.files.map((file) => file.path).sort()).toEqual(["agents/explore-1/wire.jsonl", "agents/main/wire.jsonl", "state.json"]);

    await store.restore(await store.locate(recording.id, source.lease.root, source.context().home), target.context());
    const bucket = bucketOf(target.lease.root, "project");
    expect(await readdir(sessions(target.lease.home))).toEqual([bucket]);
    const restored = join(sessions(target.lease.home), bucket, recording.id);
    expect(store.destination(recording.id, target.lease, record.file)).toBe(restored);
    const state = JSON.parse(await readFile(join(restored, "state.json"), "utf8")) as {
      id: string;
      cwd: string;
      version: number;
      agents: Record<string, { homedir: string }>;
    };
    expect(state).toMatchObject({ id: recording.id, version: 2, cwd: target.lease.root });
    expect(Object.values(state.agents).map((agent) => agent.homedir)).toEqual([target.lease.home, target.lease.home]);
    const wire = (await readFile(join(restored, "agents", "main", "wire.jsonl"), "utf8")).split("\n");
    expect(JSON.parse(wire[2]!).output).toBe(`Wrote 2 bytes to ${target.lease.root}/hello.txt (not ${recording.workspace}ository)`);
    // The only old path left is the one that merely shares a prefix (`…/repoository`), on purpose.
    const wireText = wire.join("\n");
    expect(wireText.split(`${recording.workspace}ository`).join("")).not.toContain(source.base);
    const stale = await filesMentioning(target.lease.home, [source.base, "/tmp/outpost-fixture"]);
    expect(stale).toEqual([`.kimi-code/sessions/${bucket}/${recording.id}/agents/main/wire.jsonl`]);
  });

  it("refuses sessions its validate rejects, at capture and when a bundle is located", async () => {
    const { recording, source } = pair;
    const stateFile = join(folder(), "state.json");
    const state = JSON.parse(await readFile(stateFile, "utf8")) as Record<string, unknown>;
    await writeFile(stateFile, JSON.stringify({ ...state, version: 1 }));
    await expectCode(store.capture(recording.id, source.context()), "session", /version 1 is not supported/);
    await writeFile(stateFile, JSON.stringify({ ...state, id: "another" }));
    await expectCode(store.capture(recording.id, source.context()), "session", /names session another/);
    await writeFile(stateFile, JSON.stringify({ ...state, agents: [] }));
    await expectCode(store.capture(recording.id, source.context()), "session", /no agents object/);
    await writeFile(stateFile, "{");
    await expectCode(store.capture(recording.id, source.context()), "session", /not valid JSON/);

    await writeFile(stateFile, JSON.stringify(state));
    const record = await store.capture(recording.id, source.context());
    const bundle = JSON.parse(await readFile(record.file, "utf8")) as { files: { path: string; data: string }[] };
    bundle.files.find((file) => file.path === "state.json")!.data = JSON.stringify({ ...state, cwd: 7 });
    await writeFile(record.file, JSON.stringify(bundle));
    await expectCode(store.locate(recording.id, source.lease.root, source.context().home), "session", /has no cwd/);
  });

  it("with copies in several buckets (one home, several workspaces) takes the workspace's, restores beside the others, never asks to remove one", async () => {
    const { recording, source, target } = pair;
    const copy = join(sessions(recording.home), "wd_copy_000000000000", recording.id);
    await cp(folder(), copy, { recursive: true });
    await writeFile(join(copy, "state.json"), (await readFile(join(copy, "state.json"), "utf8")).replace("{", '{"copy": true,'));
    const record = await store.capture(recording.id, source.context());
    const bundle = JSON.parse(await readFile(record.file, "utf8")) as { bucket: string };
    expect(bundle.bucket).toBe(bucketOf(recording.workspace, "repo"));
    await rm(join(sessions(recording.home), "wd_copy_000000000000"), { recursive: true });

    const elsewhere = join(sessions(target.lease.home), "wd_elsewhere_111111111111", recording.id);
    await mkdir(elsewhere, { recursive: true });
    await writeFile(join(elsewhere, "state.json"), "kept");
    await store.restore(record, target.context());
    expect(await readFile(join(elsewhere, "state.json"), "utf8")).toBe("kept");
    const buckets = await readdir(sessions(target.lease.home));
    expect(buckets).toHaveLength(2);
    expect(buckets).toContain("wd_elsewhere_111111111111");

    await rm(join(folder(), "agents", "main", "wire.jsonl"));
    await expectCode(store.capture(recording.id, source.context()), "session", /incomplete, agents\/main\/wire\.jsonl missing/);
  });

  it("honours KIMI_CODE_HOME", async () => {
    const { recording, source } = pair;
    const base = await mkdtemp(join(tmpdir(), "outpost-kimi-home-"));
    await mkdir(join(base, "w"));
    const lease = await localProvider({ home: "private" }).acquire({
      repository: join(base, "w"),
      directory: join(base, "w"),
      gitDirectories: [],
      variables: { KIMI_CODE_HOME: join(base, "kimi") },
    });
    try {
      await store.restore(await store.capture(recording.id, source.context()), {
        repository: lease.root,
        sandbox: lease,
        staging: join(base, "staging"),
      });
      const tree = Object.keys(await readTree(join(base, "kimi", "sessions")));
      expect(tree.sort()).toEqual([
        `${bucketOf(lease.root, "w")}/${recording.id}/agents/explore-1/wire.jsonl`,
        `${bucketOf(lease.root, "w")}/${recording.id}/agents/main/wire.jsonl`,
        `${bucketOf(lease.root, "w")}/${recording.id}/state.json`,
      ]);
    } finally {
      await lease.release();
      await rm(base, { recursive: true, force: true });
    }
  });
});
