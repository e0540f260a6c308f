import { isOutpostError } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { CODEX_FORK_SINCE, CodexDecoder, codexAgent } from "../src/index.js";

const turn = { prompt: "x", root: "/work/repo", home: "/home/agent" };
const ID = "01a23602-2a2f-75f3-9c72-23a3abd8668b";

describe("codexAgent across CLI versions", () => {
  it("forks only with releases that have `exec fork`, and says which release does", () => {
    expect(CODEX_FORK_SINCE).toBe("0.148.0");
    const old = codexAgent({ version: "0.147.0" });
    expect(old.forkable).toBe(false);
    expect(old.resumable).toBe(true);
    expect(old.unsupported?.("fork")).toMatch(/codex 0\.147\.0 has no `exec fork`; fork needs codex 0\.148\.0 or newer/);
    let error: unknown;
    try {
      old.command({ ...turn, resume: { id: ID, fork: true } });
    } catch (caught) {
      error = caught;
    }
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect(String((error as Error).message)).toContain("0.148.0");
    expect(old.command({ ...turn, resume: { id: ID } }).arguments.slice(-3)).toEqual(["resume", ID, "-"]);
    const current = codexAgent({ version: "0.171.0" });
    expect(current.forkable).toBe(true);
    expect(current.unsupported?.("fork")).toBeUndefined();
  });

  it("warns when the release is outside the tested range, naming what it changes", () => {
    const messages = codexAgent().cliWarnings?.({ version: "0.120.0" }) ?? [];
    expect(messages).toEqual([
      expect.stringMatching(/codex 0\.120\.0 is outside the tested range 0\.147\.0–0\.171\.0.*affected: fork \(from 0\.148\.0\)/),
    ]);
    expect(codexAgent({ version: "0.160.0" }).cliWarnings?.({})).toEqual([]);
  });
});

describe("CodexDecoder usage and unknown kinds", () => {
  const completed =
    '{"type":"turn.completed","usage":{"input_tokens":48,"cached_input_tokens":0,"output_tokens":28,"reasoning_output_tokens":0}}';

  it("takes turn.completed as the turn's usage on a new thread only: on a continued one it is the thread's total", () => {
    expect(new CodexDecoder().decode(completed)[0]).toEqual({
      type: "usage",
      usage: { inputTokens: 48, outputTokens: 28, cacheReadTokens: 0, reasoningTokens: 0 },
    });
    const continued = new CodexDecoder(undefined, { continued: true }).decode(completed);
    expect(continued).toEqual([
      { type: "usage", usage: { incomplete: true } },
      { type: "finished", usage: { incomplete: true } },
    ]);
  });

  it("reports an unknown kind once per turn, keeps every line raw, and stays quiet for known ones", () => {
    const messages: string[] = [];
    const decoder = new CodexDecoder(undefined, { diagnostic: (message) => messages.push(message) });
    const line = '{"type":"thread.compacted","x":1}';
    expect(decoder.decode(line)).toEqual([{ type: "raw", line, value: { type: "thread.compacted", x: 1 } }]);
    decoder.decode(line);
    decoder.decode('{"type":"item.completed","item":{"id":"i","type":"image_generation"}}');
    decoder.decode('{"type":"turn.started"}');
    decoder.decode('{"type":"item.completed","item":{"id":"r","type":"reasoning","text":"…"}}');
    expect(messages).toEqual([expect.stringContaining('"thread.compacted"'), expect.stringContaining('"item.completed/image_generation"')]);
    decoder.decode(completed);
    decoder.decode(line);
    expect(messages).toHaveLength(3);
  });
});
