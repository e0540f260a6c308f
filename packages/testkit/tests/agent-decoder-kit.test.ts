import { describe, expect, it } from "vitest";
import { jsonStringField, lazyRawEvent, leadingJsonType, parseJsonLine, type AgentEvent, type AgentLineDecoder } from "@outpost/core";
import { describeAgentDecoder } from "../src/index.js";
import type { SuiteRunner } from "../src/shared/suite-runner.js";

// A stream in the shape the CLIs print (type-first JSONL), with a line of an unmapped type kept as raw.
const RECORDED = [
  '{"type":"session.start","data":{"sessionId":"s-1"}}',
  '{"type":"user.message","data":{"content":"write hello.txt"}}',
  '{"type":"assistant.turn_start","data":{"turnId":"0"}}',
  '{"type":"assistant.message","data":{"content":"Writing the file."}}',
  '{"type":"tool.call","data":{"toolName":"write","arguments":{"path":"hello.txt"}}}',
  '{"type":"assistant.message","data":{"content":"Done."}}',
  '{"type":"result","sessionId":"s-1","exitCode":0}',
];

/** A small correct decoder built on core's JSON-line helper: the reference the kit must pass. */
class ReferenceDecoder implements AgentLineDecoder {
  private lastText: string | undefined;

  decode(line: string): AgentEvent[] {
    const type = leadingJsonType(line);
    if (type !== undefined && !["session.start", "user.message", "assistant.message", "tool.call", "result"].includes(type))
      return [lazyRawEvent(line)];
    const value = parseJsonLine(line);
    if (!value) return line.trim() === "" ? [] : [{ type: "raw", line }];
    const data = value["data"] as Record<string, unknown> | undefined;
    const mapped = this.map(value["type"], typeof data === "object" && data !== null ? data : undefined, value);
    return mapped.length > 0 ? mapped : [{ type: "raw", line, value }];
  }

  private map(type: unknown, data: Record<string, unknown> | undefined, value: Record<string, unknown>): AgentEvent[] {
    const text = jsonStringField(data, "content");
    switch (type) {
      case "session.start": {
        const id = jsonStringField(data, "sessionId");
        return id === undefined ? [] : [{ type: "conversation", id }];
      }
      case "user.message":
        return text === undefined ? [] : [{ type: "prompt", text }];
      case "assistant.message":
        if (text === undefined) return [];
        this.lastText = text;
        return [{ type: "text", text }];
      case "tool.call": {
        const name = jsonStringField(data, "toolName");
        return name === undefined ? [] : [{ type: "tool-call", name, input: data?.["arguments"] ?? {} }];
      }
      case "result":
        return [{ type: "finished", ...(this.lastText === undefined ? {} : { text: this.lastText }), isError: value["exitCode"] !== 0 }];
      default:
        return [];
    }
  }
}

interface CollectedCase {
  readonly title: string;
  readonly body: () => unknown;
}

/** A runner that records cases instead of running them, so a test can run the suite and inspect failures. */
function collectingRunner(): { runner: SuiteRunner; cases: CollectedCase[] } {
  const cases: CollectedCase[] = [];
  const path: string[] = [];
  const runner: SuiteRunner = {
    describe: (title, body) => {
      path.push(title);
      body();
      path.pop();
    },
    it: Object.assign((title: string, body: () => unknown) => cases.push({ title: [...path, title].join(" > "), body }), {
      skip: (title: string) => cases.push({ title: [...path, title].join(" > "), body: () => undefined }),
    }),
    beforeAll: () => undefined,
    afterAll: () => undefined,
  };
  return { runner, cases };
}

async function runSuite(createDecoder: () => AgentLineDecoder): Promise<{ all: string[]; failed: string[] }> {
  const { runner, cases } = collectingRunner();
  describeAgentDecoder({ name: "subject", createDecoder, recorded: RECORDED, runner });
  const failed: string[] = [];
  for (const test of cases) {
    try {
      await test.body();
    } catch {
      failed.push(test.title);
    }
  }
  return { all: cases.map((test) => test.title), failed };
}

/** The reference decoder with one behaviour broken. */
function broken(decode: (line: string, inner: AgentLineDecoder) => AgentEvent[]): () => AgentLineDecoder {
  return () => {
    const inner = new ReferenceDecoder();
    return { decode: (line) => decode(line, inner) };
  };
}

// The suite itself, through the default vitest runner, against the reference decoder.
describeAgentDecoder({ name: "reference", createDecoder: () => new ReferenceDecoder(), recorded: RECORDED });

describe("the agent-decoder suite catches broken decoders", () => {
  it("registers every group and passes the reference decoder", async () => {
    const { all, failed } = await runSuite(() => new ReferenceDecoder());
    for (const group of ["line by line", "chunked stream", "huge lines", "malformed fields"]) {
      expect(all.some((title) => title.includes(`> ${group} >`))).toBe(true);
    }
    expect(all.length).toBeGreaterThanOrEqual(9);
    expect(failed).toEqual([]);
  });

  it("fails a decoder that throws on lines that are not JSON", async () => {
    const { all, failed } = await runSuite(
      broken((line, inner) => {
        JSON.parse(line);
        return inner.decode(line);
      }),
    );
    expect(failed.filter((title) => title.includes("line by line"))).toHaveLength(2);
    expect(failed.filter((title) => title.includes("chunked stream"))).toHaveLength(4);
    expect(failed.some((title) => title.includes("8 MB of garbage"))).toBe(true);
    expect(failed.length).toBeLessThan(all.length);
  });

  it("fails a decoder that drops lines it does not understand", async () => {
    const { failed } = await runSuite(broken((line, inner) => inner.decode(line).filter((event) => event.type !== "raw")));
    expect(failed.filter((title) => title.includes("line by line"))).toHaveLength(2);
    expect(failed.filter((title) => title.includes("chunked stream"))).toHaveLength(4);
    expect(failed.filter((title) => title.includes("huge lines"))).toHaveLength(2);
  });

  it("fails a decoder that turns a hostile line into a known event", async () => {
    const { failed } = await runSuite(
      broken((line, inner) => (line.includes("from_a_future_version") ? [{ type: "text", text: line }] : inner.decode(line))),
    );
    expect(failed.filter((title) => title.includes("line by line"))).toHaveLength(2);
    expect(failed.filter((title) => title.includes("chunked stream") && title.includes("seed"))).toHaveLength(3);
  });

  it("fails a decoder that cuts long lines in its raw events", async () => {
    const { failed } = await runSuite(
      broken((line, inner) =>
        inner.decode(line).map((event) => (event.type === "raw" ? { type: "raw", line: event.line.slice(0, 1024 * 1024) } : event)),
      ),
    );
    expect(failed.filter((title) => title.includes("huge lines"))).toHaveLength(2);
  });

  it("fails a decoder whose known events change when hostile lines come between them", async () => {
    // Forgets the last text on every raw line, so the `finished` text differs once hostile lines are mixed in.
    const { failed } = await runSuite(() => {
      let inner = new ReferenceDecoder();
      return {
        decode: (line) => {
          const events = inner.decode(line);
          if (events.every((event) => event.type === "raw")) inner = new ReferenceDecoder();
          return events;
        },
      };
    });
    expect(failed.filter((title) => title.includes("line by line"))).toHaveLength(2);
  });

  it("fails a decoder that throws on known types with fields of the wrong type", async () => {
    const { failed } = await runSuite(
      broken((line, inner) => {
        const value = parseJsonLine(line);
        if (value?.["type"] === "tool.call" && typeof (value["data"] as { toolName?: unknown } | undefined)?.toolName === "number")
          throw new TypeError("toolName.trim is not a function");
        return inner.decode(line);
      }),
    );
    expect(failed).toEqual([
      "agent decoder conformance: subject > malformed fields > never throws on recorded lines whose fields have the wrong types",
    ]);
  });

  it("refuses an empty recorded stream", () => {
    expect(() =>
      describeAgentDecoder({ name: "empty", createDecoder: () => new ReferenceDecoder(), recorded: [], runner: collectingRunner().runner }),
    ).toThrow(/recorded/);
  });
});
