export { kimiAgent } from "./kimi-agent.js";
export type { KimiAgentOptions, KimiEndpoint } from "./kimi-agent.js";
export { KimiDecoder } from "./kimi-decoder.js";
