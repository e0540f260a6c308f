import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError, type SandboxProvider } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { createSandbox, dispatch, type DispatchOptions } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// Unknown option fields are refused with configuration, naming the field and the nearest known one, before
// anything is allocated: a misspelt field would otherwise be ignored and the dispatch run otherwise than asked.
const scratch = mkdtempSync(join(tmpdir(), "outpost-unknown-fields-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("unknown option fields", () => {
  const repository = scratchRepository("outpost-unknown-fields-");
  let acquired = 0;
  const inner = localProvider({ home: "private" });
  const provider: SandboxProvider = { ...inner, acquire: (context) => (acquired++, inner.acquire(context)) };
  const base = { agent: scriptAgent({ directory: scratch }), brief: "x", repository, sandboxProvider: provider };

  it.each([
    [{ idelMs: 5 }, "idleMs"],
    [{ branch: { mode: "integrate", from: "main" } }, "from"],
    [{ branch: { mode: "named", name: "n", bsae: "main" } }, "base"],
    [{ continuation: { id: "c", forks: true } }, "fork"],
    [{ limits: { gitMS: 1000 } }, "gitMs"],
    [{ storageQuota: { maxBytes: 1, reserveByte: 1 } }, "reserveBytes"],
    [{ bootstrap: { registy: "https://r" } }, "registry"],
    [{ logging: { replayble: true } }, "replayable"],
    [{ hooks: { sandboxready: [] } }, "sandboxReady"],
    [{ telemetry: { tracr: {} } }, "tracer"],
    [{ response: { schema: (value: unknown) => value, repair: 1 } }, "repairs"],
  ] as const)("refuses %j before anything is allocated, naming %s", async (extra, named) => {
    const error = await dispatch({ ...base, ...extra } as unknown as DispatchOptions).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect((error as Error).message).toContain(named);
    expect(acquired).toBe(0);
    expect(existsSync(join(repository, ".outpost"))).toBe(false);
  });

  it("names the nearest known field as a suggestion, and leaves undefined values alone", async () => {
    const error = await dispatch({ ...base, idelMs: 5 } as unknown as DispatchOptions).catch((caught: unknown) => caught as Error);
    expect((error as Error).message).toContain("idelMs (did you mean idleMs?)");
    const result = await dispatch({ ...base, notAnOption: undefined, branch: { mode: "current" } } as unknown as DispatchOptions);
    expect(result.turns).toHaveLength(1);
  }, 60_000);

  it("has no default agent: an omitted one is refused quoting the page's rule, nothing allocated", async () => {
    const { agent: _omitted, ...withoutAgent } = base;
    const before = acquired;
    const error = await dispatch(withoutAgent as unknown as DispatchOptions).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect((error as Error).message).toContain("from createAgent() or createReplayAgent(), or a createFallbackAgent()");
    expect(acquired).toBe(before);
  });

  it("createSandbox() refuses its unknown fields too", async () => {
    const error = await createSandbox({ sandboxProvider: provider, repository, brnach: { mode: "current" } } as never).catch(
      (caught: unknown) => caught,
    );
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect((error as Error).message).toContain("did you mean branch?");
  });
});
