import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { sessionBundleStore } from "../src/index.js";
import { demoProfile } from "./demo-profile.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";

// The sandbox's temporary folder and the staging folders are shared with everything else running there:
// a capture or restore, successful or refused, must leave nothing behind in them.
describe("sessionBundleStore leaves no temporary files", () => {
  let sandboxTemp: string;
  let source: TestSandbox;
  let target: TestSandbox;
  const store = sessionBundleStore(demoProfile);

  beforeEach(async () => {
    sandboxTemp = await mkdtemp(join(tmpdir(), "outpost-sandbox-temp-"));
    source = await localSandbox("repo", { TMPDIR: sandboxTemp });
    target = await localSandbox("elsewhere", { TMPDIR: sandboxTemp });
    const folder = join(source.lease.home, ".demo", "sessions", ID);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "state.json"), JSON.stringify({ version: 2, id: ID, cwd: source.lease.root }));
    await writeFile(join(folder, "log.jsonl"), "{}\n");
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
    await rm(sandboxTemp, { recursive: true, force: true });
  });

  it("after a capture and a restore through node in the sandbox", async () => {
    // The sandbox's node really writes its temporary files there, so an empty folder means cleaned up.
    const seen = await source.lease.invoke({ executable: "node", arguments: ["-p", "require('node:os').tmpdir()"] });
    expect(seen.stdout.trim()).toBe(sandboxTemp);
    const record = await store.capture(ID, source.context());
    expect(await readdir(sandboxTemp)).toEqual([]);
    await store.restore(record, target.context());
    expect(await readdir(sandboxTemp)).toEqual([]);
    expect(await readdir(join(target.base, "staging"))).toEqual([]);
    expect((await readdir(target.lease.home)).filter((name) => name.startsWith(".outpost"))).toEqual([]);
    expect(await readdir(join(source.workspace, ".outpost", "conversations", "demo"))).toEqual([`${ID}.json`]);
  });

  it("after a refused capture and a refused restore", async () => {
    await writeFile(join(source.lease.home, ".demo", "sessions", ID, "state.json"), JSON.stringify({ version: 1 }));
    const refused = await store.capture(ID, source.context()).catch((error: unknown) => error);
    expect(isOutpostError(refused, "session")).toBe(true);
    expect(await readdir(sandboxTemp)).toEqual([]);

    await writeFile(join(source.lease.home, ".demo", "sessions", ID, "state.json"), JSON.stringify({ version: 2, id: ID }));
    const record = await store.capture(ID, source.context());
    const throwing = sessionBundleStore({
      ...demoProfile,
      relocate: () => {
        throw new Error("no");
      },
    });
    const failed = await throwing.restore(record, target.context()).catch((error: unknown) => error);
    expect(isOutpostError(failed, "session")).toBe(true);
    expect(await readdir(sandboxTemp)).toEqual([]);
    expect(await readdir(join(target.base, "staging"))).toEqual([]);
    expect((await readdir(target.lease.home)).filter((name) => name.startsWith(".outpost"))).toEqual([]);
    expect(await readdir(join(source.workspace, ".outpost", "conversations", "demo"))).toEqual([`${ID}.json`]);
  });
});
