// One dispatch in a fresh Node process importing the built library once (the "script" scenario of
// fresh-process.bench.ts). Prints one JSON line: phase timings and peak RSS.
// Usage: node fresh-dispatch.mjs <repository> <agent-module.mjs>
import { pathToFileURL } from "node:url";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";

const [repository, agentModule] = process.argv.slice(2);
const { createAgent } = await import(pathToFileURL(agentModule).href);
const timings = {};
const result = await dispatch({
  agent: createAgent({}),
  brief: "brief",
  repository,
  sandboxProvider: localProvider({ home: "private" }),
  branch: { mode: "integrate" },
  diagnostic: (message) => {
    const match = /^timing: (\S+) (\d+) ms$/.exec(message);
    if (match) timings[match[1]] = Number(match[2]);
  },
});
if (result.commits.length !== 1) throw new Error("the agent's commit is missing");
process.stdout.write(`${JSON.stringify({ timings, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
