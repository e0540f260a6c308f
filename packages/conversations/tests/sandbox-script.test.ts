import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { runSandboxScript } from "../src/index.js";
import { SCRIPT_RESULT_MARKER } from "../src/sandbox/script-outcome.js";
import { inputLine, invokeScript, scriptResult, scriptSource } from "../src/sandbox/sandbox-script.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

describe("runSandboxScript", () => {
  let sandbox: TestSandbox;
  beforeEach(async () => {
    sandbox = await localSandbox();
  });
  afterEach(async () => {
    await sandbox.dispose();
  });

  it("runs a program with node in the sandbox and in-process, with the same result", async () => {
    const [first, second] = [join(sandbox.workspace, "first"), join(sandbox.workspace, "second")];
    writeFileSync(first, "x");
    writeFileSync(second, "x");
    const remote = await runSandboxScript(sandbox.lease, "remove", { path: first }, { what: "remove a file" });
    const local = await runSandboxScript(sandbox.lease, "remove", { path: second }, { what: "remove a file", local: true });
    expect(remote).toBe(true);
    expect(local).toBe(remote);
    expect([existsSync(first), existsSync(second)]).toEqual([false, false]);
  });

  it("turns a thrown outpostCode into that OutpostError, and anything else into code session", async () => {
    const missing = { home: sandbox.lease.home, root: { directory: ".none" }, sessions: "s", id: "abc", pattern: "^abc$", sidecar: false };
    const error = await runSandboxScript(
      sandbox.lease,
      "locateTranscript",
      { ...missing, maxBytes: 1, maxFiles: 1 },
      { what: "find" },
    ).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "session"), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/No conversation abc: .* does not exist in the sandbox/);
    expect((error as { details: unknown }).details).toEqual({ id: "abc" });
    const unexpected = await runSandboxScript(sandbox.lease, "remove", { path: 42 }, { what: "fail" }).catch((caught: unknown) => caught);
    expect(isOutpostError(unexpected, "session")).toBe(true);
    expect((unexpected as Error).message).toMatch(/Unexpected failure in the sandbox: TypeError/);
    const unknown = await runSandboxScript(sandbox.lease, "nosuch" as never, null, { what: "fail" }).catch((caught: unknown) => caught);
    expect(isOutpostError(unknown, "configuration")).toBe(true);
  });

  it("reports a sandbox without node as a process error, with the whole last line of its stderr", async () => {
    const lease = Object.create(sandbox.lease) as typeof sandbox.lease;
    const withoutNode = {
      ...lease,
      root: sandbox.lease.root,
      home: sandbox.lease.home,
      invoke: (command: Parameters<typeof lease.invoke>[0]) => sandbox.lease.invoke({ ...command, variables: { PATH: "/nonexistent" } }),
    };
    const error = await runSandboxScript(withoutNode as never, "remove", { path: "/nonexistent" }, { what: "probe" }).catch(
      (caught: unknown) => caught,
    );
    expect(isOutpostError(error, "process"), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/node/);
  });

  it("keeps whole lines of a long stderr in the message", () => {
    const stderr = `${"early noise\n".repeat(200)}ReferenceError: __require is not defined\n    at main\n`;
    const error = (() => {
      try {
        return scriptResult({ status: 1, stdout: "", stderr }, { what: "capture" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(isOutpostError(error, "process")).toBe(true);
    expect((error as Error).message).toMatch(
      /exited with status 1 and no result: (early noise\n)*ReferenceError: __require is not defined\n {4}at main\./,
    );
  });

  it("returns once the script printed its outcome, without waiting for its process to end", async () => {
    const folder = mkdtempSync(join(tmpdir(), "outpost-script-"));
    const [gate, ended] = [join(folder, "gate"), join(folder, "ended")];
    // A process that stays alive after its outcome until the host opens the gate.
    const lingering = `const fs = require("node:fs");
process.stdout.write("\\n${SCRIPT_RESULT_MARKER}" + JSON.stringify({ ok: true, value: "printed" }) + "\\n");
const timer = setInterval(() => {
  if (!fs.existsSync(${JSON.stringify(gate)})) return;
  clearInterval(timer);
  fs.writeFileSync(${JSON.stringify(ended)}, "");
}, 10);`;
    const result = await invokeScript(sandbox.lease, lingering, { what: "linger" }, { stdin: "null\n" });
    expect(scriptResult(result, { what: "linger" })).toBe("printed");
    expect(existsSync(ended)).toBe(false);
    writeFileSync(gate, "");
    await expect.poll(() => existsSync(ended), { timeout: 10_000 }).toBe(true);
  });

  it("refuses a result that is not JSON", async () => {
    const noisy = `process.stdout.write("\\n${SCRIPT_RESULT_MARKER}{not json\\n"); process.exit(0);`;
    const result = await invokeScript(sandbox.lease, noisy, { what: "be noisy" }, {});
    const error = (() => {
      try {
        return scriptResult(result, { what: "be noisy" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(isOutpostError(error, "process")).toBe(true);
  });

  it("starts the program at the end of its input line, while stdin is still open", async () => {
    // A name with a line break, a carriage return and a non-ASCII letter: the JSON line carries them escaped.
    const file = join(sandbox.workspace, "two\nlines\r\n é");
    writeFileSync(file, "x");
    const input = new PassThrough();
    const line = inputLine({ path: file })!;
    // The line arrives in two writes; stdin ends only after the outcome is back.
    input.write(line.slice(0, 5));
    setTimeout(() => input.write(line.slice(5)), 20);
    const result = await invokeScript(sandbox.lease, scriptSource("remove", {}), { what: "remove" }, { input });
    expect(input.writableEnded).toBe(false);
    expect(scriptResult(result, { what: "remove" })).toBe(true);
    expect(existsSync(file)).toBe(false);
    input.end();
    expect(inputLine(undefined)).toBeUndefined();
  });
});
