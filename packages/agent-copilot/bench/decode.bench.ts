// Decoding throughput (against a JSON.parse floor) and memory of the copilot decoder on recorded 1.0.102 output.
//   npm run bench -w @outpost/agent-copilot          (OUTPOST_BENCH_BYTES=1073741824 for a 1 GiB memory pass)
import { join } from "node:path";
import { fixtureReader, runDecodeBench } from "@outpost/testkit/bench";
import { copilotAgent } from "@outpost/agent-copilot";

const { fixtureLines } = fixtureReader(join(import.meta.dirname, "..", "tests", "fixtures"));

runDecodeBench({
  name: "copilot",
  createDecoder: () => copilotAgent().createDecoder(),
  recorded: [
    ...fixtureLines("streams", "copilot-1.0.102-turn1-tool-call.jsonl"),
    ...fixtureLines("failures", "copilot-1.0.102-http-429.jsonl"),
  ],
});
