import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { SandboxLease } from "@outpost/core";
import { sessionBundleStore, transcriptStore } from "../src/index.js";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { withDockerLease } from "./docker-lease.js";
import { demoProfile } from "./demo-profile.js";
import { demoTranscript, transcriptLine } from "./demo-transcript.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "d0c4e7a1-0000-4000-8000-0000000000d0";
const gated = await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] });

describeGated("conversations through a Docker lease", gated, () => {
  let local: TestSandbox;
  let back: TestSandbox;
  beforeEach(async () => {
    local = await localSandbox("repo");
    back = await localSandbox("again");
  });
  afterEach(async () => {
    await local.dispose();
    await back.dispose();
  });

  const inDocker = <T>(body: (lease: SandboxLease) => Promise<T>) => withDockerLease((lease) => body(lease));

  it("a session bundle moves host → container → host with its paths following", async () => {
    const store = sessionBundleStore(demoProfile);
    const session = join(local.lease.home, ".demo", "sessions", ID);
    await mkdir(session, { recursive: true });
    await writeFile(join(session, "state.json"), JSON.stringify({ version: 2, cwd: local.lease.root }));
    await writeFile(join(session, "log.jsonl"), `${JSON.stringify({ path: `${local.lease.root}/a.txt`, home: local.lease.home })}\n`);
    const first = await store.capture(ID, local.context());
    const fromDocker = await inDocker(async (lease) => {
      const context = {
        repository: local.workspace,
        sandbox: lease,
        staging: join(local.base, "docker-staging"),
        home: join(local.base, "docker-host-home"),
      };
      await store.restore(first, context);
      const log = await lease.invoke({ executable: "cat", arguments: [`${lease.home}/.demo/sessions/${ID}/log.jsonl`] });
      expect(JSON.parse(log.stdout)).toEqual({ path: `${lease.root}/a.txt`, home: lease.home });
      return store.capture(ID, context);
    });
    const bundle = JSON.parse(await readFile(fromDocker.file, "utf8")) as { origin: { workspace: string; home: string } };
    expect(bundle.origin).toEqual({ workspace: "/workspace", home: "/home/outpost" });
    await store.restore(fromDocker, back.context());
    const state = JSON.parse(await readFile(join(back.lease.home, ".demo", "sessions", ID, "state.json"), "utf8")) as {
      cwd: string;
      restoredFrom: string;
    };
    expect(state).toMatchObject({ cwd: back.lease.root, restoredFrom: "/workspace" });
  }, 120_000);

  it("a transcript moves host → container → host", async () => {
    const store = transcriptStore(demoTranscript);
    const folder = join(local.lease.home, ".demo-transcript", "sessions", "repo");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, `${ID}.jsonl`), transcriptLine(3, local.lease.root, local.lease.home));
    const first = await store.capture(ID, local.context());
    const fromDocker = await inDocker(async (lease) => {
      const context = {
        repository: local.workspace,
        sandbox: lease,
        staging: join(local.base, "docker-staging"),
        home: join(local.base, "docker-host-home"),
      };
      await store.restore(first, context);
      return store.capture(ID, context);
    });
    expect(fromDocker.file).toContain(`/files/workspace/${ID}.jsonl`);
    await store.restore(fromDocker, back.context());
    const text = await readFile(join(back.lease.home, ".demo-transcript", "sessions", "again", `${ID}.jsonl`), "utf8");
    expect(JSON.parse(text)).toMatchObject({ cwd: back.lease.root, memory: `${back.lease.home}/.demo-transcript/memory` });
  }, 120_000);
});
