// Decoding throughput (against a JSON.parse floor) and memory of the gemini decoder on recorded 0.61.0 output.
//   npm run bench -w @outpost/agent-gemini          (OUTPOST_BENCH_BYTES=1073741824 for a 1 GiB memory pass)
import { join } from "node:path";
import { fixtureReader, runDecodeBench } from "@outpost/testkit/bench";
import { GeminiDecoder } from "@outpost/agent-gemini";

const { fixtureLines } = fixtureReader(join(import.meta.dirname, "..", "tests", "fixtures"));

runDecodeBench({
  name: "gemini",
  createDecoder: () => new GeminiDecoder(),
  recorded: [...fixtureLines("streams", "gemini-0.61.0-write-file.jsonl"), ...fixtureLines("streams", "gemini-0.61.0-tool-errors.jsonl")],
});
