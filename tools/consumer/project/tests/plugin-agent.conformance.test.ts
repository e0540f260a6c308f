import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describeAgentDecoder } from "@outpost/testkit";
import { NotesDecoder } from "outpost-agent-notes";
import { scratchRepository } from "./support/installed.js";

// The third-party agent's decoder through the installed kit, on a stream its CLI really printed just now.
const require = createRequire(import.meta.url);
const cli = join(dirname(require.resolve("outpost-agent-notes/package.json")), "bin", "notes-agent.mjs");
const recorded = execFileSync(process.execPath, [cli, "--prompt", "record me"], { cwd: scratchRepository(), encoding: "utf8" })
  .trim()
  .split("\n");

describeAgentDecoder({ name: "outpost-agent-notes", createDecoder: () => new NotesDecoder(), recorded });
