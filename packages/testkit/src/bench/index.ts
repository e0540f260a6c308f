export { runDecodeBench } from "./decode-bench.js";
export type { DecodeBenchOptions, DecodeBenchResult } from "./decode-bench.js";
export { fixtureReader } from "../agent/fixture-reader.js";
export type { FixtureReader } from "../agent/fixture-reader.js";
export { runRemoteProviderBench } from "./remote-provider-bench.js";
export type {
  BenchComparison,
  BenchFile,
  RawPlatform,
  RemoteProviderBenchOptions,
  RemoteProviderBenchResult,
  RoundTripCounts,
} from "./remote-provider-bench.js";
export { usePrivateTmpdir } from "./private-tmpdir.js";
