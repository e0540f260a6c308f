// Decoding throughput (against a JSON.parse floor) and memory of the kimi decoder on the documented print-mode stream.
//   npm run bench -w @outpost/agent-kimi          (OUTPOST_BENCH_BYTES=1073741824 for a 1 GiB memory pass)
import { join } from "node:path";
import { fixtureReader, runDecodeBench } from "@outpost/testkit/bench";
import { kimiAgent } from "@outpost/agent-kimi";

const { fixtureLines } = fixtureReader(join(import.meta.dirname, "..", "tests", "fixtures"));

runDecodeBench({
  name: "kimi",
  createDecoder: () => kimiAgent().createDecoder(),
  recorded: [...fixtureLines("streams", "kimi-documented-print-mode.jsonl"), ...fixtureLines("streams", "kimi-constructed-parts.jsonl")],
});
