export { runDecodeBench } from "./decode-bench.js";
export type { DecodeBenchOptions, DecodeBenchResult } from "./decode-bench.js";
