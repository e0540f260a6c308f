import { link, mkdir, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConversationStore } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { sessionBundleStore, transcriptStore } from "../src/index.js";
import { bucketedProfile, demoProfile } from "./demo-profile.js";
import { demoTranscript, transcriptLine } from "./demo-transcript.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

// A hostile session folder: whatever the agent left there, capture takes only the session's own files.
const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";
const SECRET = "outside-the-home-secret-91c4";

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isOutpostError(error), `expected an OutpostError, got ${String(error)}`).toBe(true);
  return error as { code: string; message: string };
}

/** How a file at `path` can point outside the session. */
const LINK_KINDS: ReadonlyArray<[string, (path: string, outside: string) => Promise<void>]> = [
  ["a symbolic link to a file outside the home", (path, outside) => symlink(join(outside, "secret.txt"), path)],
  ["a symbolic link to a folder outside the home", (path, outside) => symlink(outside, path)],
  ["a dangling symbolic link", (path) => symlink("/nonexistent/outpost", path)],
  ["a relative symbolic link climbing out", (path) => symlink("../../../../../../../../outside/secret.txt", path)],
  ["a hard link to a file outside the home", (path, outside) => link(join(outside, "secret.txt"), path)],
];
const MESSAGE = /symbolic link|hard links/;

interface Layout {
  readonly name: string;
  readonly store: ConversationStore;
  /** Writes a sound session into the sandbox; returns its folder (the bundle folder or the sidecar). */
  write(sandbox: TestSandbox): Promise<string>;
  /** Session-relative places, from the captured files to paths the include filter skips. */
  readonly places: readonly string[];
}

const LAYOUTS: readonly Layout[] = [
  {
    name: "session bundle",
    store: sessionBundleStore(demoProfile),
    async write(sandbox) {
      const folder = join(sandbox.lease.home, ".demo", "sessions", ID);
      await mkdir(join(folder, "notes"), { recursive: true });
      await writeFile(join(folder, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd: sandbox.lease.root })}\n`);
      await writeFile(join(folder, "log.jsonl"), '{"type":"text","text":"hi"}\n');
      return folder;
    },
    places: ["blob.bin", "notes/extra.md", "session.lock", "cache/deep/skipped.bin"],
  },
  {
    name: "transcript with sidecar",
    store: transcriptStore(demoTranscript),
    async write(sandbox) {
      const project = join(sandbox.lease.home, ".demo-transcript", "sessions", "repo");
      await mkdir(join(project, ID, "subagents"), { recursive: true });
      await writeFile(join(project, `${ID}.jsonl`), transcriptLine(0, sandbox.lease.root, sandbox.lease.home));
      await writeFile(join(project, ID, "subagents", "agent-1.jsonl"), transcriptLine(1, sandbox.lease.root, sandbox.lease.home));
      return join(project, ID);
    },
    places: ["subagents/agent-2.jsonl", "a/b/c/d/deep.jsonl", "../" + `${ID}.jsonl`],
  },
];

describe.each(LAYOUTS)("capture of a $name", ({ store, write, places }) => {
  let sandbox: TestSandbox;
  let outside: string;
  let folder: string;
  beforeEach(async () => {
    sandbox = await localSandbox("repo");
    outside = join(sandbox.base, "outside");
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, "secret.txt"), SECRET);
    folder = await write(sandbox);
  });
  afterEach(async () => {
    await sandbox.dispose();
  });

  const cases = places.flatMap((place) => LINK_KINDS.map(([kind, make]) => ({ place, kind, make })));
  it.each(cases)("refuses $kind at $place, in the sandbox and in-process", async ({ place, make }) => {
    const path = join(folder, place);
    await mkdir(dirname(path), { recursive: true });
    await rm(path, { force: true });
    await make(path, outside);
    for (const local of [false, true]) {
      const error = await failure(store.capture(ID, { ...sandbox.context(), local }));
      expect(error.code).toBe("workspace");
      expect(error.message).toMatch(MESSAGE);
    }
    const captured = join(sandbox.workspace, ".outpost");
    const names = await readdir(captured, { recursive: true }).catch(() => [] as string[]);
    for (const name of names) {
      const text = await readFile(join(captured, name), "utf8").catch(() => "");
      expect(text).not.toContain(SECRET);
    }
  });

  it("refuses a name that is not valid UTF-8 with code session, wherever it is", async () => {
    // Beside the transcript, in another session's space, a name is none of this session's business.
    for (const place of places.filter((candidate) => !candidate.startsWith("../"))) {
      const directory = Buffer.from(dirname(join(folder, place)));
      await mkdir(directory, { recursive: true });
      const name = Buffer.concat([directory, Buffer.from("/n\xff.bin", "latin1")]);
      await writeFile(name, "x");
      for (const local of [false, true]) {
        const error = await failure(store.capture(ID, { ...sandbox.context(), local }));
        expect(error.code, place).toBe("session");
        expect(error.message).toMatch(/not valid UTF-8/);
        expect(error.message).not.toMatch(/Report it/);
      }
      await rm(name);
    }
  }, 120_000);
});

describe("refusals name the real reason", () => {
  let sandbox: TestSandbox;
  let outside: string;
  beforeEach(async () => {
    sandbox = await localSandbox("repo");
    outside = join(sandbox.base, "outside");
    await mkdir(outside, { recursive: true });
  });
  afterEach(async () => {
    await sandbox.dispose();
  });

  async function bundleSession(folder: string): Promise<void> {
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd: sandbox.lease.root })}\n`);
    await writeFile(join(folder, "log.jsonl"), "{}\n");
  }

  it("a symbolic link on the way to a bundle: CLI home, sessions folder, bucket, session folder", async () => {
    const home = sandbox.lease.home;
    const bucket = "wd_repo_0123456789ab";
    // [store, the link, where it points, where the session really is]
    const cases: Array<[ConversationStore, string, string, string]> = [
      [sessionBundleStore(demoProfile), join(home, ".demo"), outside, join(outside, "sessions", ID)],
      [sessionBundleStore(demoProfile), join(home, ".demo", "sessions"), outside, join(outside, ID)],
      [sessionBundleStore(demoProfile), join(home, ".demo", "sessions", ID), outside, outside],
      [sessionBundleStore(bucketedProfile), join(home, ".demo", "sessions", bucket), outside, join(outside, ID)],
    ];
    for (const [store, linkPath, pointsTo, session] of cases) {
      await rm(outside, { recursive: true, force: true });
      await rm(join(home, ".demo"), { recursive: true, force: true });
      await bundleSession(session);
      await mkdir(dirname(linkPath), { recursive: true });
      await symlink(pointsTo, linkPath);
      const error = await failure(store.capture(ID, sandbox.context()));
      expect(error.code, linkPath).toBe("workspace");
      expect(error.message).toContain(`${linkPath} is a symbolic link`);
    }
  });

  it("a stray file among the buckets is neither a bucket nor a failure, at capture and restore", async () => {
    const store = sessionBundleStore(bucketedProfile);
    const sessions = join(sandbox.lease.home, ".demo", "sessions");
    const bucket = store.destination(ID, sandbox.lease, "").split("/").slice(-2)[0]!;
    await bundleSession(join(sessions, bucket, ID));
    await writeFile(join(sessions, "stray.lock"), "");
    const record = await store.capture(ID, sandbox.context());
    await store.restore(record, sandbox.context());
    expect((await readdir(sessions)).sort()).toEqual([bucket, "stray.lock"].sort());
  });

  it("a link planted at the staging folder under the home never carries a copy out of it", async () => {
    await symlink(outside, join(sandbox.lease.home, ".outpost-staging"));
    await bundleSession(join(sandbox.lease.home, ".demo", "sessions", ID));
    const project = join(sandbox.lease.home, ".demo-transcript", "sessions", "repo");
    await mkdir(join(project, ID), { recursive: true });
    await writeFile(join(project, `${ID}.jsonl`), "{}\n");
    await writeFile(join(project, ID, ".env"), "TOKEN=x");
    const stores = [sessionBundleStore(demoProfile), transcriptStore({ ...demoTranscript, sidecarExclude: /(^|\/)\.env$/ })];
    for (const store of stores) {
      const error = await failure(store.capture(ID, sandbox.context()));
      expect(error.code).toBe("workspace");
      expect(error.message).toContain(".outpost-staging is a symbolic link");
      expect(await readdir(outside)).toEqual([]);
    }
  });

  it("a file where the session folder should be", async () => {
    await mkdir(join(sandbox.lease.home, ".demo", "sessions"), { recursive: true });
    await writeFile(join(sandbox.lease.home, ".demo", "sessions", ID), "not a folder");
    const error = await failure(sessionBundleStore(demoProfile).capture(ID, sandbox.context()));
    expect(error.code).toBe("workspace");
    expect(error.message).toMatch(/is a file where the session folder should be/);
  });

  it("a transcript behind a symbolic link, or a folder where the transcript file should be", async () => {
    const store = transcriptStore(demoTranscript);
    const sessions = join(sandbox.lease.home, ".demo-transcript", "sessions");
    await mkdir(sessions, { recursive: true });
    await writeFile(join(outside, `${ID}.jsonl`), "{}\n");
    await symlink(outside, join(sessions, "repo"));
    const linked = await failure(store.capture(ID, sandbox.context()));
    expect(linked.code).toBe("workspace");
    expect(linked.message).toMatch(/repo \(a symbolic link, which Outpost never follows\)/);

    await rm(join(sessions, "repo"));
    await mkdir(join(sessions, "repo", `${ID}.jsonl`), { recursive: true });
    const folder = await failure(store.capture(ID, sandbox.context()));
    expect(folder.code).toBe("workspace");
    expect(folder.message).toMatch(/is a folder where the transcript file should be/);

    await rm(sessions, { recursive: true });
    await mkdir(join(outside, "repo"), { recursive: true });
    await mkdir(dirname(sessions), { recursive: true });
    await symlink(outside, sessions);
    const linkedSessions = await failure(store.capture(ID, sandbox.context()));
    expect(linkedSessions.code).toBe("workspace");
    expect(linkedSessions.message).toContain(`${sessions} is a symbolic link`);
  });
});
