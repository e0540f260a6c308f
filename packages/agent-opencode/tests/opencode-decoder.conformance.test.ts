import { join } from "node:path";
import { describeAgentDecoder, fixtureReader } from "@outpost/testkit";
import { opencodeAgent } from "../src/index.js";

const { fixtureLines } = fixtureReader(join(import.meta.dirname, "fixtures"));

describeAgentDecoder({
  name: "opencode",
  createDecoder: () => opencodeAgent().createDecoder(),
  // Every tested release: the pinned one and the oldest of the version matrix (e2e cli-matrix/versions.txt).
  recorded: [
    ...fixtureLines("streams", "opencode-1.17.0-turn1-tool-call.jsonl"),
    ...fixtureLines("streams", "opencode-1.17.0-turn2-resume.jsonl"),
    ...fixtureLines("streams", "opencode-1.18.33-turn1-tool-call.jsonl"),
    ...fixtureLines("streams", "opencode-1.18.33-tool-error.jsonl"),
    ...fixtureLines("failures", "opencode-1.18.33-http-503.jsonl"),
  ],
});
