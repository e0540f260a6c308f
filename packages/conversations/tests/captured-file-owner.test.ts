import { existsSync } from "node:fs";
import { chmod, chown, mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { sessionBundleStore, transcriptStore } from "../src/index.js";
import { demoProfile } from "./demo-profile.js";
import { demoTranscript, transcriptLine } from "./demo-transcript.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

// What the stores read back from `.outpost/conversations` must be the host user's own writing: a link, or a
// file or folder another user (a sandbox) could have written, is refused with code `session`, naming it.
const ID = "0716f583-aaaa-4bbb-8ccc-0123456789ab";
const asRoot = process.geteuid?.() === 0;

async function refusal(promise: Promise<unknown>): Promise<Error & { code: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isOutpostError(error), `expected an OutpostError, got ${String(error)}`).toBe(true);
  return error as Error & { code: string };
}

describe("captured conversations on the host are read only when the host user wrote them", () => {
  let source: TestSandbox;
  let target: TestSandbox;
  beforeEach(async () => {
    source = await localSandbox("repo");
    target = await localSandbox("project");
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
  });

  async function capturedTranscript() {
    const store = transcriptStore(demoTranscript);
    const sessions = join(source.lease.home, ".demo-transcript", "sessions", "repo");
    await mkdir(sessions, { recursive: true });
    await writeFile(join(sessions, `${ID}.jsonl`), transcriptLine(0, source.lease.root, source.lease.home), { mode: 0o600 });
    const record = await store.capture(ID, source.context());
    return { store, record, folder: join(source.workspace, ".outpost", "conversations", "demo-transcript", ID) };
  }

  it("transcript: origin.json as a link is refused when located", async () => {
    const { store, folder } = await capturedTranscript();
    await rename(join(folder, "origin.json"), join(folder, "origin.real"));
    await symlink(join(folder, "origin.real"), join(folder, "origin.json"));
    const error = await refusal(store.locate(ID, source.workspace));
    expect(error.code).toBe("session");
    expect(error.message).toContain(`Refused to read ${join(folder, "origin.json")}`);
    expect(error.message).toContain("it is a symbolic link");
  });

  it("transcript: a transcript every user can write is refused at restore; nothing reaches the sandbox", async () => {
    const { store, record } = await capturedTranscript();
    await chmod(record.file, 0o666);
    const error = await refusal(store.restore(record, target.context()));
    expect(error.code).toBe("session");
    expect(error.message).toContain(`Refused to read ${record.file}`);
    expect(error.message).toContain("every user can write it");
    expect(existsSync(join(target.lease.home, ".demo-transcript", "sessions", "project", `${ID}.jsonl`))).toBe(false);
  });

  (asRoot ? it : it.skip)("transcript: a conversation folder of another user is refused", async () => {
    const { store, folder } = await capturedTranscript();
    await chown(folder, 4242, 4242);
    const error = await refusal(store.locate(ID, source.workspace));
    expect(error.code).toBe("session");
    expect(error.message).toContain(`Refused to read ${folder}`);
    expect(error.message).toContain("it belongs to uid 4242");
  });

  (asRoot ? it : it.skip)(
    "bundle: a bundle of another user, or writable by another group, is refused when located and packed",
    async () => {
      const store = sessionBundleStore(demoProfile);
      const session = join(source.lease.home, ".demo", "sessions", ID);
      await mkdir(session, { recursive: true });
      await writeFile(join(session, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd: source.lease.root })}\n`);
      await writeFile(join(session, "log.jsonl"), '{"type":"text","text":"hi"}\n');
      const record = await store.capture(ID, source.context());
      await chown(record.file, 4242, 4242);
      const foreign = await refusal(store.locate(ID, source.workspace));
      expect(foreign.code).toBe("session");
      expect(foreign.message).toContain(`Refused to read ${record.file}`);
      await chown(record.file, process.geteuid!(), 4242);
      await chmod(record.file, 0o660);
      const group = await refusal(store.pack(record));
      expect(group.message).toContain("group 4242 can write it");
    },
  );
});
