// Decoding throughput (against a JSON.parse floor) and memory of the opencode decoder on recorded 1.18.33 output.
//   npm run bench -w @outpost/agent-opencode          (OUTPOST_BENCH_BYTES=1073741824 for a 1 GiB memory pass)
import { join } from "node:path";
import { fixtureReader, runDecodeBench } from "@outpost/testkit/bench";
import { opencodeAgent } from "@outpost/agent-opencode";

const { fixtureLines } = fixtureReader(join(import.meta.dirname, "..", "tests", "fixtures"));

runDecodeBench({
  name: "opencode",
  createDecoder: () => opencodeAgent().createDecoder(),
  recorded: [
    ...fixtureLines("streams", "opencode-1.18.33-turn1-tool-call.jsonl"),
    ...fixtureLines("streams", "opencode-1.18.33-tool-error.jsonl"),
  ],
});
