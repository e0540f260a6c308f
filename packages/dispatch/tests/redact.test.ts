import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { createRedactor, dispatch, type DispatchOptions } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// The redact option: refused when malformed before anything is allocated; what the redactor replaces.
// Where it is applied (every stored and emitted byte) is tested end to end in packages/e2e (dispatch-redaction-claude).
const scratch = mkdtempSync(join(tmpdir(), "outpost-redact-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("redact option", () => {
  const repository = scratchRepository("outpost-redact-");
  const base = { agent: scriptAgent({ directory: scratch }), brief: "x", repository, sandboxProvider: localProvider({ home: "private" }) };

  it.each([
    [{ patterns: ["("] }, "not a valid regular expression"],
    [{ patterns: "secret" }, "redact.patterns must be an array"],
    [{ values: [""] }, "redact.values"],
    [{ conversations: "yes" }, "redact.conversations"],
    [{ value: ["x"] }, "values"],
    ["secret", "redact must be an object"],
  ] as const)("refuses %j with configuration before anything is allocated", async (redact, named) => {
    const error = await dispatch({ ...base, redact } as unknown as DispatchOptions).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect((error as Error).message).toContain(named);
    expect(existsSync(join(repository, ".outpost"))).toBe(false);
  });

  it("replaces values (longest first) and every match of each pattern, inside plain objects and arrays", () => {
    const caller = /tok-\d+/;
    const redactor = createRedactor({ values: ["ab", "abcd"], patterns: [caller, "key=[a-z]+"] });
    expect(redactor.text("abcd ab tok-1 tok-22 key=xyz")).toBe("[redacted] [redacted] [redacted] [redacted] [redacted]");
    // The caller's RegExp is not made global, and its lastIndex is not moved.
    expect(caller.global).toBe(false);
    expect(caller.lastIndex).toBe(0);
    const bytes = new Uint8Array([1, 2]);
    expect(redactor.value({ list: ["ab", 1, { deep: "x tok-3" }], bytes })).toEqual({
      list: ["[redacted]", 1, { deep: "x [redacted]" }],
      bytes,
    });
    // Nothing to replace: the same object back, nothing copied.
    const clean = { list: ["x", { deep: "y" }] };
    expect(redactor.value(clean)).toBe(clean);
  });

  it("adds credentials of at least 8 characters, and nothing else when nothing is asked", () => {
    const redactor = createRedactor(undefined);
    expect(redactor.empty).toBe(true);
    redactor.addCredentials(["short", "sk-long-credential"]);
    expect(redactor.text("short sk-long-credential")).toBe("short [redacted]");
    expect(redactor.conversations).toBe(false);
  });
});
