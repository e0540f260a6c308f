import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { runSandboxScript } from "../src/index.js";
import { inputLine, invokeScript, scriptResult, scriptSource } from "../src/sandbox/sandbox-script.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

// What a script's `main` reaches as the global `lib` in the sandbox (see sandboxLibrary).
declare const lib: { readonly fs: typeof import("node:fs") };

describe("runSandboxScript", () => {
  let sandbox: TestSandbox;
  beforeEach(async () => {
    sandbox = await localSandbox();
  });
  afterEach(async () => {
    await sandbox.dispose();
  });

  it("runs a self-contained function with node in the sandbox and in-process, with the same result", async () => {
    const main = (input: { a: number }) => ({ doubled: input.a * 2, pid: typeof process.pid });
    const remote = await runSandboxScript(sandbox.lease, main as never, { a: 21 }, { what: "double" });
    const local = await runSandboxScript(sandbox.lease, main as never, { a: 21 }, { what: "double", local: true });
    expect(remote).toEqual({ doubled: 42, pid: "number" });
    expect(local).toEqual(remote);
  });

  it("turns a thrown outpostCode into that OutpostError, and anything else into code session", async () => {
    const coded = () => {
      throw Object.assign(new Error("too big"), { outpostCode: "limit", details: { size: 3 } });
    };
    const error = await runSandboxScript(sandbox.lease, coded as never, null, { what: "fail" }).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "limit")).toBe(true);
    expect((error as { details: unknown }).details).toEqual({ size: 3 });
    const plain = () => JSON.parse("{");
    const unexpected = await runSandboxScript(sandbox.lease, plain as never, null, { what: "fail" }).catch((caught: unknown) => caught);
    expect(isOutpostError(unexpected, "session")).toBe(true);
    expect((unexpected as Error).message).toMatch(/Unexpected failure in the sandbox: SyntaxError/);
  });

  it("reports a sandbox without node as a process error", async () => {
    const lease = Object.create(sandbox.lease) as typeof sandbox.lease;
    const withoutNode = {
      ...lease,
      root: sandbox.lease.root,
      home: sandbox.lease.home,
      invoke: (command: Parameters<typeof lease.invoke>[0]) => sandbox.lease.invoke({ ...command, variables: { PATH: "/nonexistent" } }),
    };
    const error = await runSandboxScript(withoutNode as never, () => 1, null, { what: "probe" }).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "process"), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/node/);
  });

  it("returns once the script printed its outcome, without waiting for its process to end", async () => {
    const folder = mkdtempSync(join(tmpdir(), "outpost-script-"));
    const [gate, ended] = [join(folder, "gate"), join(folder, "ended")];
    // The script's process stays alive after its outcome until the host opens the gate.
    const lingering = (input: { gate: string; ended: string }) => {
      const fs = lib.fs;
      const timer = setInterval(() => {
        if (!fs.existsSync(input.gate)) return;
        clearInterval(timer);
        fs.writeFileSync(input.ended, "");
      }, 10);
      return "printed";
    };
    expect(await runSandboxScript(sandbox.lease, lingering as never, { gate, ended }, { what: "linger" })).toBe("printed");
    expect(existsSync(ended)).toBe(false);
    writeFileSync(gate, "");
    await expect.poll(() => existsSync(ended), { timeout: 10_000 }).toBe(true);
  });

  it("refuses a result that is not JSON", async () => {
    const noisy = () => {
      process.stdout.write("\n@@outpost-script-result@@{not json\n");
      process.exit(0);
    };
    const error = await runSandboxScript(sandbox.lease, noisy as never, null, { what: "be noisy" }).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "process")).toBe(true);
  });

  it("starts main at the end of its input line, while stdin is still open", async () => {
    const echo = (input: unknown) => input;
    const input = new PassThrough();
    const value = { text: "two\nlines", nested: ["\r\n", "é"] };
    const line = inputLine(value)!;
    // The line arrives in two writes; stdin ends only after the outcome is back.
    input.write(line.slice(0, 5));
    setTimeout(() => input.write(line.slice(5)), 20);
    const result = await invokeScript(sandbox.lease, scriptSource(echo, {}), { what: "echo" }, { input });
    expect(input.writableEnded).toBe(false);
    expect(scriptResult(result, { what: "echo" })).toEqual(value);
    input.end();
    expect(inputLine(undefined)).toBeUndefined();
    expect(await runSandboxScript(sandbox.lease, echo as never, undefined, { what: "echo nothing" })).toBeNull();
  });
});
