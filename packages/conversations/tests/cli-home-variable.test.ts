import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessionBundleStore } from "../src/index.js";
import { demoProfile } from "./demo-profile.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";

async function writeSession(folder: string, cwd: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "state.json"), `${JSON.stringify({ version: 2, id: ID, cwd })}\n`);
  await writeFile(join(folder, "log.jsonl"), `${JSON.stringify({ cwd })}\n`);
}

// The sandbox's own environment does not set DEMO_CLI_HOME: only the agent's variables do, as a CLI home
// given through an agent's `variables` (COPILOT_HOME, KIMI_CODE_HOME) reaches the CLI and nothing else.
describe("root.variable set through the agent's variables", () => {
  let source: TestSandbox;
  let target: TestSandbox;
  let cliHome: string;
  let targetHome: string;

  beforeEach(async () => {
    source = await localSandbox("repo");
    target = await localSandbox("elsewhere");
    cliHome = await mkdtemp(join(tmpdir(), "outpost-cli-home-"));
    targetHome = await mkdtemp(join(tmpdir(), "outpost-cli-home-"));
    await writeSession(join(cliHome, "sessions", ID), source.lease.root);
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
    await rm(cliHome, { recursive: true, force: true });
    await rm(targetHome, { recursive: true, force: true });
  });

  for (const local of [false, true]) {
    it(`is honoured by capture, restore and destination() from the store's options (${local ? "in process" : "node in the sandbox"})`, async () => {
      const store = sessionBundleStore(demoProfile, { variables: { DEMO_CLI_HOME: cliHome } });
      expect(store.destination(ID, source.lease, "")).toBe(join(cliHome, "sessions", ID));
      const record = await store.capture(ID, { ...source.context(), local });
      await rm(join(cliHome, "sessions", ID), { recursive: true });
      await store.restore(record, { ...target.context(), local });
      const state = JSON.parse(await readFile(join(cliHome, "sessions", ID, "state.json"), "utf8")) as { cwd: string };
      expect(state.cwd).toBe(target.lease.root);
    });

    it(`the context's variables win over the store's (${local ? "in process" : "node in the sandbox"})`, async () => {
      const store = sessionBundleStore(demoProfile, { variables: { DEMO_CLI_HOME: "/nowhere" } });
      const record = await store.capture(ID, { ...source.context(), local, variables: { DEMO_CLI_HOME: cliHome } });
      await store.restore(record, { ...target.context(), local, variables: { DEMO_CLI_HOME: targetHome } });
      const state = JSON.parse(await readFile(join(targetHome, "sessions", ID, "state.json"), "utf8")) as { cwd: string };
      expect(state.cwd).toBe(target.lease.root);
    });
  }

  it("without the variable, the session under the agent home is not found", async () => {
    const store = sessionBundleStore(demoProfile);
    await expect(store.capture(ID, source.context())).rejects.toMatchObject({ code: "session" });
  });
});
