import { describe, expect, it } from "vitest";
import { addUsage, errorLines, UnknownKinds } from "../src/index.js";

describe("errorLines", () => {
  it("finds the CLI's own error line before its help text", () => {
    const stderr =
      "error: unexpected argument '--disable-client-telemetry' found\n\n  tip: a similar argument exists: '--disable-builtin-mcps'\n\nUsage: copilot --output-format <format>\n";
    expect(errorLines(stderr)).toEqual(["error: unexpected argument '--disable-client-telemetry' found"]);
  });

  it("does not take option tables that mention ERROR for errors, and names a bare usage text", () => {
    const help =
      'opencode run [message..]\n\nOptions:\n  -h, --help   show help  [boolean]\n      --log-level   log level [string] [choices: "DEBUG", "INFO", "WARN", "ERROR"]\n';
    expect(errorLines(help)).toEqual([expect.stringMatching(/printed only its usage text \(`opencode run \[message\.\.\]`\)/)]);
  });

  it("keeps at most the first few, strips colours, cuts long lines, and is empty for quiet stderr", () => {
    const many = Array.from({ length: 10 }, (_, index) => `\u001b[31mError ${index}\u001b[0m`).join("\n");
    expect(errorLines(many)).toEqual(["Error 0", "Error 1", "Error 2"]);
    expect(errorLines(`fatal: ${"x".repeat(1000)}`)[0]).toHaveLength(301);
    expect(errorLines("all good\nnothing to see\n")).toEqual([]);
  });
});

describe("UnknownKinds", () => {
  it("reports each kind once per turn, again after a reset, and survives a throwing sink", () => {
    const messages: string[] = [];
    const kinds = new UnknownKinds("demo", (message) => messages.push(message));
    kinds.seen("a.b");
    kinds.seen("a.b");
    kinds.seen("c");
    expect(messages).toEqual([expect.stringContaining('demo: unknown event kind "a.b"'), expect.stringContaining('"c"')]);
    kinds.reset();
    kinds.seen("a.b");
    expect(messages).toHaveLength(3);
    const throwing = new UnknownKinds("demo", () => {
      throw new Error("sink broke");
    });
    expect(() => throwing.seen("x")).not.toThrow();
    expect(() => new UnknownKinds("demo", undefined).seen("x")).not.toThrow();
  });

  it("bounds what a hostile stream of made-up kinds can send", () => {
    const messages: string[] = [];
    const kinds = new UnknownKinds("demo", (message) => messages.push(message));
    for (let index = 0; index < 10_000; index++) kinds.seen(`kind-${index}-${"z".repeat(200)}`);
    expect(messages).toHaveLength(100);
    expect(messages.every((message) => message.length < 300)).toBe(true);
  });
});

describe("addUsage", () => {
  it("keeps incomplete when either side is incomplete", () => {
    expect(addUsage({ inputTokens: 1 }, { incomplete: true })).toEqual({ inputTokens: 1, incomplete: true });
    expect(addUsage({ inputTokens: 1 }, { inputTokens: 2 })).toEqual({ inputTokens: 3 });
  });
});
