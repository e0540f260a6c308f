export { runDecodeBench } from "./decode-bench.js";
export type { DecodeBenchOptions, DecodeBenchResult } from "./decode-bench.js";
export { fixtureReader } from "../agent/fixture-reader.js";
export type { FixtureReader } from "../agent/fixture-reader.js";
