import { mkdir, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConversationRecord, ConversationStore } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { sessionBundleStore, transcriptStore, type PortableConversationStore } from "../src/index.js";
import { bucketedProfile, demoProfile } from "./demo-profile.js";
import { demoTranscript, transcriptLine } from "./demo-transcript.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";

/** Every path under `folder` with its bytes: proves nothing was written there. */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  const result: Record<string, string> = {};
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    result[path.slice(folder.length)] = entry.isFile() ? await readFile(path, "utf8") : "<dir>";
  }
  return result;
}

interface Layout {
  readonly name: string;
  readonly store: PortableConversationStore;
  write(sandbox: TestSandbox, names?: readonly string[]): Promise<void>;
  /** Folders and files on the way to the restored session, from the CLI home down (target sandbox). */
  way(sandbox: TestSandbox): string[];
  /** Where the restored file called `name` lands. */
  restored(sandbox: TestSandbox, name: string): string;
}

const bundleLayout = (name: string, store: PortableConversationStore, bucketed: boolean): Layout => ({
  name,
  store,
  async write(sandbox, names = []) {
    const folder = join(sandbox.lease.home, ".demo", "sessions", ...(bucketed ? [bucketOf(sandbox)] : []), ID);
    await mkdir(join(folder, "notes"), { recursive: true });
    await writeFile(join(folder, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd: sandbox.lease.root })}\n`);
    await writeFile(join(folder, "log.jsonl"), '{"type":"text","text":"hi"}\n');
    for (const file of names) await writeFile(join(folder, "notes", file), `note ${file}`);
  },
  way(sandbox) {
    const sessions = join(sandbox.lease.home, ".demo", "sessions");
    const parent = bucketed ? join(sessions, bucketOf(sandbox)) : sessions;
    return [join(sandbox.lease.home, ".demo"), sessions, ...(bucketed ? [parent] : []), join(parent, ID), join(parent, ID, "notes")];
  },
  restored(sandbox, file) {
    return join(sandbox.lease.home, ".demo", "sessions", ...(bucketed ? [bucketOf(sandbox)] : []), ID, "notes", file);
  },
});

function bucketOf(sandbox: TestSandbox): string {
  return sessionBundleStore(bucketedProfile).destination(ID, sandbox.lease, "").split("/").slice(-2)[0]!;
}

const LAYOUTS: readonly Layout[] = [
  bundleLayout("session bundle", sessionBundleStore(demoProfile), false),
  bundleLayout("bucketed session bundle", sessionBundleStore(bucketedProfile), true),
  {
    name: "transcript with sidecar",
    store: transcriptStore(demoTranscript),
    async write(sandbox, names = []) {
      const project = join(sandbox.lease.home, ".demo-transcript", "sessions", basename(sandbox.workspace));
      await mkdir(join(project, ID, "subagents"), { recursive: true });
      await writeFile(join(project, `${ID}.jsonl`), transcriptLine(0, sandbox.lease.root, sandbox.lease.home));
      for (const file of names) await writeFile(join(project, ID, "subagents", file), `note ${file}`);
    },
    way(sandbox) {
      const sessions = join(sandbox.lease.home, ".demo-transcript", "sessions");
      const project = join(sessions, basename(sandbox.workspace));
      return [
        join(sandbox.lease.home, ".demo-transcript"),
        sessions,
        project,
        join(project, `${ID}.jsonl`),
        join(project, ID),
        join(project, ID, "subagents"),
      ];
    },
    restored(sandbox, file) {
      return join(sandbox.lease.home, ".demo-transcript", "sessions", basename(sandbox.workspace), ID, "subagents", file);
    },
  },
];

describe.each(LAYOUTS)("restore of a $name", (layout) => {
  let source: TestSandbox;
  let target: TestSandbox;
  let record: ConversationRecord;
  beforeEach(async () => {
    source = await localSandbox("repo");
    target = await localSandbox("project");
    await layout.write(source, ["agent-2.jsonl"]);
    record = await layout.store.capture(ID, source.context());
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
  });

  it("never writes through a link at any depth of the destination", async () => {
    const outside = join(target.base, "outside");
    const way = layout.way(target);
    const kinds: Array<[string, (at: string) => Promise<void>]> = [
      ["a link to an existing folder outside", async (at) => symlink(outside, at)],
      ["a dangling link into the outside", async (at) => symlink(join(outside, "made", "by", "restore"), at)],
      ["a relative link climbing out", async (at) => symlink(`${"../".repeat(12)}${outside.slice(1)}`, at)],
    ];
    // Each kind runs once in the sandbox (node) and once in-process (host placement), alternating depths.
    let turn = 0;
    for (const at of way) {
      for (const [kind, make] of kinds) {
        {
          const local = turn++ % 2 === 1;
          await rm(way[0]!, { recursive: true, force: true });
          await rm(outside, { recursive: true, force: true });
          await mkdir(outside, { recursive: true });
          await writeFile(join(outside, "keep.txt"), "the host's own file");
          await mkdir(dirname(at), { recursive: true });
          await make(at);
          const before = await snapshot(outside);
          // A link inside the old session is replaced with it; a link on the way, or in its place, is refused.
          // In a live home (host placement) a session already there is kept as it is, links included.
          const kept: string[] = [];
          const outcome = await layout.store.restore(record, { ...target.context(), local, warn: (message) => kept.push(message) }).then(
            () => undefined,
            (error: unknown) => error,
          );
          if (outcome !== undefined) {
            expect(isOutpostError(outcome) && outcome.code, `${kind} at ${at}: ${String(outcome)}`).toBe("workspace");
            expect((outcome as Error).message).toMatch(/symbolic link/);
          } else if (kept.length > 0) {
            expect(local).toBe(true);
            expect(kept.join("\n")).toMatch(/already in the sandbox home/);
          } else {
            expect(await readFile(layout.restored(target, "agent-2.jsonl"), "utf8")).toBe("note agent-2.jsonl");
          }
          expect(await snapshot(outside), `${kind} at ${at}`).toEqual(before);
        }
      }
    }
  }, 120_000);

  it("whatever capture accepts, pack and unpack accept: unusual names survive the trip", async () => {
    const names = [
      "back\\slash.jsonl",
      "-dash.jsonl",
      "space name.jsonl",
      "ünïcødé.jsonl",
      "colon:star*.jsonl",
      "new\nline.jsonl",
      "%2F..dots",
      "quote\"'.jsonl",
    ];
    const origin = await localSandbox("repo");
    const elsewhere = await localSandbox("elsewhere");
    try {
      await layout.write(origin, names);
      const captured = await layout.store.capture(ID, origin.context());
      const bytes = await layout.store.pack(captured);
      const unpacked = await layout.store.unpack(ID, bytes, elsewhere.workspace);
      const located = await layout.store.locate(ID, elsewhere.workspace);
      expect(located.file).toBe(unpacked.file);
      await layout.store.restore(located, elsewhere.context());
      for (const name of names) expect(await readFile(layout.restored(elsewhere, name), "utf8"), name).toBe(`note ${name}`);
    } finally {
      await origin.dispose();
      await elsewhere.dispose();
    }
  }, 120_000);
});

describe("a transcript captured from a folder whose name has a backslash", () => {
  it("is located, packed, unpacked and restored", async () => {
    const store: ConversationStore & PortableConversationStore = transcriptStore(demoTranscript);
    const origin = await localSandbox("repo");
    const elsewhere = await localSandbox("plain");
    try {
      const project = join(origin.lease.home, ".demo-transcript", "sessions", "we\\ird");
      await mkdir(project, { recursive: true });
      await writeFile(join(project, `${ID}.jsonl`), transcriptLine(0, origin.lease.root, origin.lease.home));
      const captured = await store.capture(ID, origin.context());
      const unpacked = await store.unpack(ID, await store.pack(captured), elsewhere.workspace);
      await store.restore(await store.locate(ID, elsewhere.workspace), elsewhere.context());
      expect(unpacked.file).toContain("we\\ird");
      const restored = await readFile(join(elsewhere.lease.home, ".demo-transcript", "sessions", "plain", `${ID}.jsonl`), "utf8");
      expect(JSON.parse(restored).cwd).toBe(elsewhere.lease.root);
    } finally {
      await origin.dispose();
      await elsewhere.dispose();
    }
  });
});
