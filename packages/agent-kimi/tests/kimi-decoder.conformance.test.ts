import { join } from "node:path";
import { describeAgentDecoder, fixtureReader } from "@outpost/testkit";
import { kimiAgent } from "../src/index.js";

const { fixtureLines } = fixtureReader(join(import.meta.dirname, "fixtures"));

describeAgentDecoder({
  name: "kimi",
  createDecoder: () => kimiAgent().createDecoder(),
  recorded: [...fixtureLines("streams", "kimi-documented-print-mode.jsonl"), ...fixtureLines("streams", "kimi-constructed-parts.jsonl")],
});
