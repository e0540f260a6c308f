import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError, type AgentAdapter } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { dispatch } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// Page 003: `bootstrap` names a built-in agent whose pinned CLI Outpost installs. A custom agent that names
// "claude" without carrying the pin resolves it from the installed claude plugin's descriptor; a name no
// installed plugin has is still refused before anything is allocated.
const scratch = mkdtempSync(join(tmpdir(), "outpost-installed-bootstrap-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("bootstrap names from the installed agent plugins", () => {
  const custom = (bootstrap: string): AgentAdapter => ({ ...scriptAgent({ directory: scratch }), bootstrap });

  it("a custom agent naming claude is accepted (a host provider installs nothing)", async () => {
    const result = await dispatch({
      agent: custom("claude"),
      brief: "x",
      repository: scratchRepository("outpost-bootstrap-"),
      sandboxProvider: localProvider({ home: "private" }),
    });
    expect(result.turns).toHaveLength(1);
  }, 60_000);

  it("a name no installed plugin has is refused with configuration, naming it", async () => {
    let acquired = false;
    const local = localProvider({ home: "private" });
    const error = await dispatch({
      agent: custom("no-such-agent"),
      brief: "x",
      repository: scratchRepository("outpost-bootstrap-"),
      sandboxProvider: { ...local, acquire: (context) => ((acquired = true), local.acquire(context)) },
    }).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect((error as Error).message).toContain('"no-such-agent"');
    expect(acquired).toBe(false);
  });
});
