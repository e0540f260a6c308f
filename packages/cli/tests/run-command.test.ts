import { describe, expect, it } from "vitest";
import { EXIT_CODES, exitCodeFor } from "../src/exit-codes.js";
import { parseBranch, parseBrief } from "../src/run/run-command.js";
import { main } from "../src/main.js";
import { PassThrough } from "node:stream";

describe("command-line parsing", () => {
  it("maps --branch to a policy", () => {
    expect(parseBranch("current")).toEqual({ mode: "current" });
    expect(parseBranch("integrate")).toEqual({ mode: "integrate" });
    expect(parseBranch("feature/x")).toEqual({ mode: "named", name: "feature/x" });
  });

  it("reads @path as a brief file", () => {
    expect(parseBrief("@briefs/fix.md")).toEqual({ file: "briefs/fix.md" });
    expect(parseBrief("@")).toBe("@");
    expect(parseBrief("fix it")).toBe("fix it");
  });

  it("maps failure codes to exit codes", () => {
    expect(exitCodeFor("configuration")).toBe(EXIT_CODES.usage);
    expect(exitCodeFor("timeout")).toBe(3);
    expect(exitCodeFor("conflict")).toBe(4);
    expect(exitCodeFor("aborted")).toBe(130);
    expect(exitCodeFor("process")).toBe(1);
  });

  it("main: usage errors resolve with code 2 and print the usage; --version with 0", async () => {
    const out = new PassThrough();
    const err = new PassThrough();
    let errors = "";
    err.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    expect(await main(["node", "outpost", "run", "--passes", "zero", "--agent", "claude", "x"], { stdout: out, stderr: err })).toBe(2);
    expect(errors).toContain("expected a positive integer");
    expect(errors).toContain("Usage: outpost run");
    expect(await main(["node", "outpost", "--version"], { stdout: out, stderr: err })).toBe(0);
    expect(await main(["node", "outpost", "frobnicate"], { stdout: out, stderr: err })).toBe(2);
  });

  it("main: docker limit flags are checked before anything runs", async () => {
    for (const [flag, value, message] of [
      ["--pids-limit", "0", "positive integer"],
      ["--memory-mb", "lots", "positive integer"],
      ["--cpus", "-1", "positive number"],
    ] as const) {
      const err = new PassThrough();
      let errors = "";
      err.on("data", (chunk: Buffer) => {
        errors += chunk.toString();
      });
      expect(
        await main(["node", "outpost", "run", "--agent", "claude", flag, value, "x"], { stdout: new PassThrough(), stderr: err }),
      ).toBe(2);
      expect(errors).toContain(message);
    }
  });

  it("main: under --json a usage error is a JSON error object on stdout (code configuration)", async () => {
    const out = new PassThrough();
    let printed = "";
    out.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
    });
    expect(
      await main(["node", "outpost", "run", "--json", "--passes", "zero", "--agent", "claude", "x"], {
        stdout: out,
        stderr: new PassThrough(),
      }),
    ).toBe(2);
    const error = JSON.parse(printed.trim()) as { type: string; code: string; message: string };
    expect(error).toMatchObject({ type: "error", code: "configuration" });
    expect(error.message).toContain("expected a positive integer");
  });

  it("main: run needs --agent or --agent-module", async () => {
    const err = new PassThrough();
    let errors = "";
    err.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    expect(await main(["node", "outpost", "run", "brief"], { stdout: new PassThrough(), stderr: err })).toBe(2);
    expect(errors).toContain("--agent-module");
  });
});
