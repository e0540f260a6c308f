export { main } from "./main.js";
export { buildProgram } from "./program.js";
export type { ProgramIo, RunFlags } from "./program.js";
export { EXIT_CODES, exitCodeFor } from "./exit-codes.js";
export { parseBranch, parseBrief } from "./run/run-command.js";
export { AGENT_NAMES } from "./agents/agent-names.js";
export { dockerReachable } from "./run/choose-provider.js";
