import { join } from "node:path";
import { describeAgentDecoder, fixtureReader } from "@outpost/testkit";
import { copilotAgent } from "../src/index.js";

const { fixtureLines } = fixtureReader(join(import.meta.dirname, "fixtures"));

describeAgentDecoder({
  name: "copilot",
  createDecoder: () => copilotAgent().createDecoder(),
  // Every tested release: the pinned one and the oldest of the version matrix (e2e cli-matrix/versions.txt).
  recorded: [
    ...fixtureLines("streams", "copilot-1.0.92-turn1-tool-call.jsonl"),
    ...fixtureLines("streams", "copilot-1.0.92-turn2-resume.jsonl"),
    ...fixtureLines("streams", "copilot-1.0.102-turn1-tool-call.jsonl"),
    ...fixtureLines("failures", "copilot-1.0.102-http-429.jsonl"),
  ],
});
