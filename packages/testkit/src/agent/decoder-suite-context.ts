import type { AgentLineDecoder } from "@outpost/core";
import type { SuiteRunner } from "../shared/suite-runner.js";

export interface DecoderSuiteContext {
  readonly runner: SuiteRunner;
  /** A fresh decoder: decoders keep state across lines (conversation id, last text), so every run gets one. */
  readonly createDecoder: () => AgentLineDecoder;
  /** Lines of a real recorded stream, in order. */
  readonly recorded: readonly string[];
  /** Lines of known types whose fields have the wrong types: the decoder must not throw on them. */
  readonly malformed: readonly string[];
}
