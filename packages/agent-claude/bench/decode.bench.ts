// Decoding throughput (against a JSON.parse floor) and memory of the claude decoder on recorded 2.1.332 output.
//   npm run bench -w @outpost/agent-claude          (OUTPOST_BENCH_BYTES=1073741824 for a 1 GiB memory pass)
import { join } from "node:path";
import { fixtureReader, runDecodeBench } from "@outpost/testkit/bench";
import { ClaudeDecoder } from "@outpost/agent-claude";

const { fixtureLines } = fixtureReader(join(import.meta.dirname, "..", "tests", "fixtures"));

runDecodeBench({
  name: "claude",
  createDecoder: () => new ClaudeDecoder(),
  recorded: [...fixtureLines("streams", "claude-2.1.332-write-file.jsonl"), ...fixtureLines("streams", "claude-2.1.332-tool-errors.jsonl")],
});
