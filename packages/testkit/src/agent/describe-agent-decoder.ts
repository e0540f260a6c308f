import type { AgentLineDecoder } from "@outpost/core";
import { vitestRunner, type SuiteRunner } from "../shared/suite-runner.js";
import { decoderChunkedStreamTests } from "./chunked-stream.js";
import type { DecoderSuiteContext } from "./decoder-suite-context.js";
import { decoderHugeLineTests } from "./huge-lines.js";
import { decoderLineByLineTests } from "./line-by-line.js";
import { decoderMalformedFieldTests } from "./malformed-fields.js";

export interface DescribeAgentDecoderOptions {
  readonly name: string;
  /** Called for every run: each gets a fresh decoder. */
  readonly createDecoder: () => AgentLineDecoder;
  /** Lines of a real recorded stream of the agent CLI, in order. */
  readonly recorded: readonly string[];
  /** Extra lines of known types with wrong field types, on top of the ones the kit derives from `recorded`. */
  readonly malformed?: readonly string[];
  readonly runner?: SuiteRunner;
}

const GROUPS: readonly [string, (context: DecoderSuiteContext) => void][] = [
  ["line by line", decoderLineByLineTests],
  ["chunked stream", decoderChunkedStreamTests],
  ["huge lines", decoderHugeLineTests],
  ["malformed fields", decoderMalformedFieldTests],
];

/** Registers the agent-decoder conformance suite: hostile input never crashes, is kept as raw, and loses nothing. */
export function describeAgentDecoder(options: DescribeAgentDecoderOptions): void {
  const runner = options.runner ?? vitestRunner;
  if (options.recorded.length === 0)
    throw new Error(`describeAgentDecoder(${options.name}): \`recorded\` is empty; pass the lines of a real recorded stream.`);
  const context: DecoderSuiteContext = {
    runner,
    createDecoder: options.createDecoder,
    recorded: options.recorded,
    malformed: options.malformed ?? [],
  };
  runner.describe(`agent decoder conformance: ${options.name}`, () => {
    for (const [title, group] of GROUPS) runner.describe(title, () => group(context));
  });
}
