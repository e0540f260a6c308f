// Decoding throughput (against a JSON.parse floor) and memory of the codex decoder on recorded 0.171.0 output.
//   npm run bench -w @outpost/agent-codex          (OUTPOST_BENCH_BYTES=1073741824 for a 1 GiB memory pass)
import { join } from "node:path";
import { fixtureReader, runDecodeBench } from "@outpost/testkit/bench";
import { CodexDecoder } from "@outpost/agent-codex";

const { fixtureLines } = fixtureReader(join(import.meta.dirname, "..", "tests", "fixtures"));

runDecodeBench({
  name: "codex",
  createDecoder: () => new CodexDecoder(),
  recorded: [
    ...fixtureLines("streams", "codex-0.171.0-write-file.jsonl"),
    ...fixtureLines("streams", "codex-0.171.0-tool-failure-and-patch.jsonl"),
    ...fixtureLines("streams", "codex-0.171.0-turn-failed-400.jsonl"),
  ],
});
