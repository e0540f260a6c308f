import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { OutpostError, type AgentEvent } from "@outpost/core";
import type { AgentObservation, DispatchResult } from "@outpost/dispatch";
import { jsonReporter } from "../src/output/json-reporter.js";
import { progressReporter } from "../src/output/progress-reporter.js";
import { colorEnabled } from "../src/output/color-enabled.js";

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk.toString("utf8")));
  return { stream, text: () => chunks.join("") };
}

const result: DispatchResult = {
  dispatchId: "d1",
  text: "all good <outpost>done</outpost>",
  turns: [],
  usage: {},
  completed: true,
  commits: ["0123456789abcdef0123"],
  branch: "main",
  workBranch: "outpost/x",
  directory: "/repo",
  workspaceKept: false,
  conversationId: "c0ffee00-0000-4000-8000-000000000000",
  conversation: { id: "c0ffee00-0000-4000-8000-000000000000", file: "/home/me/c0ffee00.jsonl", format: "claude" },
  observerErrors: [],
  durationMs: 1234,
};

// The same run when its conversation could not be captured.
const uncaptured: DispatchResult = {
  ...result,
  conversation: undefined,
  conversationError: {
    code: "process",
    message:
      "Could not capture claude conversation c0ffee00: ReferenceError: __require is not defined. Check that node is on the sandbox PATH.",
    conversationId: "c0ffee00-0000-4000-8000-000000000000",
    pass: 1,
  },
};

// An observation as dispatch() delivers it: the event's fields, plus where and when it was seen.
function observed(pass: number, event: AgentEvent, timestamp = new Date().toISOString()): AgentObservation {
  return { ...event, dispatchId: "d1", pass, timestamp, event, at: Date.parse(timestamp), seq: 1 };
}

describe("progressReporter", () => {
  it("shows fallbacks and steering among the agent's events", () => {
    const out = capture();
    const reporter = progressReporter(out.stream, capture().stream, false);
    const at = new Date().toISOString();
    const control = (event: AgentObservation["event"]): AgentObservation => ({
      ...event,
      dispatchId: "d1",
      pass: 1,
      timestamp: at,
      event,
      at: Date.parse(at),
      seq: 1,
    });
    reporter.event(control({ type: "fallback", from: "claude", to: "codex", classification: "quota", message: "429" }));
    reporter.event(control({ type: "steer", delivery: "injected", text: "use French" }));
    reporter.close();
    expect(out.text()).toContain("↪ claude failed (quota); codex runs the brief instead");
    expect(out.text()).toContain("✎ steering injected: use French");
  });

  it("on a terminal redraws a status line with agent, pass, elapsed time and tool calls", async () => {
    const out = capture();
    const err = capture();
    const reporter = progressReporter(out.stream, err.stream, true);
    reporter.start({ agent: "claude", provider: "local" });
    reporter.event(observed(1, { type: "tool-call", name: "Write", input: { file_path: "/w/hello.txt" } }));
    await new Promise((done) => setTimeout(done, 250));
    reporter.warn("no output from claude for 60 s");
    reporter.close();
    reporter.result(result, "--agent claude");
    expect(out.text()).toContain("→ Write");
    expect(out.text()).toMatch(/claude · pass 1 · \d+\.\ds · 1 tool call/);
    expect(out.text()).toContain("\r\u001b[2K");
    expect(err.text()).toContain("! no output from claude for 60 s");
    expect(out.text()).toContain("commits: 0123456789ab on main");
    expect(out.text()).toContain("--continue c0ffee00-0000-4000-8000-000000000000");
  });

  it("elsewhere prints plain lines without terminal escapes", () => {
    const out = capture();
    const err = capture();
    const reporter = progressReporter(out.stream, err.stream, false);
    reporter.start({ agent: "claude", provider: "docker" });
    reporter.event(observed(1, { type: "text", text: "Working on it\nsecond line" }));
    reporter.error(new OutpostError("timeout", "claude produced no output. Raise idleMs."));
    reporter.close();
    expect(out.text()).not.toContain("\u001b[");
    expect(out.text()).toContain("» Working on it\n");
    expect(err.text()).toContain("outpost: timeout: claude produced no output. Raise idleMs.");
  });
});

describe("the conversation line", () => {
  it("gives the continue hint only for a captured conversation", () => {
    const printed = (value: DispatchResult): string => {
      const out = capture();
      const reporter = progressReporter(out.stream, capture().stream, false);
      reporter.result(value, "--agent claude");
      return out.text();
    };
    expect(printed(result)).toContain("continue with: outpost run --agent claude --continue c0ffee00-0000-4000-8000-000000000000");
    const failed = printed(uncaptured);
    expect(failed).not.toContain("continue with");
    expect(failed).toContain(
      "conversation: not captured, so it cannot be continued (process): Could not capture claude conversation c0ffee00: ReferenceError: __require is not defined.",
    );
    // An id without a captured conversation (an agent without storage) is named, with no hint.
    const named = printed({ ...result, conversation: undefined });
    expect(named).toContain("conversation: c0ffee00-0000-4000-8000-000000000000\n");
    expect(named).not.toContain("continue with");
  });
});

describe("jsonReporter", () => {
  it("writes one JSON object per line", () => {
    const out = capture();
    const reporter = jsonReporter(out.stream);
    reporter.start({ agent: "claude", provider: "local" });
    reporter.event(observed(2, { type: "text", text: "line\nbreak" }, "2026-12-02T00:00:00.000Z"));
    reporter.warn("careful");
    reporter.result(result, "--agent claude");
    reporter.error(new OutpostError("conflict", "Merge it yourself.", { details: { branch: "b" } }));
    const lines = out
      .text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((line) => line.type)).toEqual(["start", "event", "warning", "result", "error"]);
    expect(lines[1]).toMatchObject({ pass: 2, event: { type: "text", text: "line\nbreak" } });
    expect(lines[4]).toMatchObject({ code: "conflict", details: { branch: "b" } });
    expect(lines[3]).toMatchObject({ conversationError: null, conversation: { id: result.conversationId } });
  });

  it("says in the result why the conversation was not captured", () => {
    const out = capture();
    jsonReporter(out.stream).result(uncaptured, "--agent claude");
    const line = JSON.parse(out.text().trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ type: "result", conversation: null, conversationError: { code: "process", pass: 1 } });
  });
});

describe("colour follows NO_COLOR and FORCE_COLOR", () => {
  it("a terminal is coloured unless NO_COLOR; FORCE_COLOR colours a pipe and wins over NO_COLOR", () => {
    expect(colorEnabled(true, {})).toBe(true);
    expect(colorEnabled(true, { NO_COLOR: "1" })).toBe(false);
    expect(colorEnabled(true, { NO_COLOR: "" })).toBe(true);
    expect(colorEnabled(true, { TERM: "dumb" })).toBe(false);
    expect(colorEnabled(false, {})).toBe(false);
    expect(colorEnabled(false, { FORCE_COLOR: "1" })).toBe(true);
    expect(colorEnabled(true, { FORCE_COLOR: "0" })).toBe(false);
    expect(colorEnabled(false, { FORCE_COLOR: "1", NO_COLOR: "1" })).toBe(true);
  });

  it("an uncoloured terminal still redraws its status line, without colour codes", () => {
    const out = capture();
    const reporter = progressReporter(out.stream, capture().stream, true, false);
    reporter.start({ agent: "claude", provider: "local" });
    reporter.close();
    expect(out.text()).toContain("\r\u001b[2K");
    expect(out.text()).not.toMatch(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`));
  });
});
