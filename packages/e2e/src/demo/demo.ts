// `npm run demo`: the main job, offline. A scripted model server on 127.0.0.1 stands in for the vendor API;
// the real Claude Code CLI runs through dispatch() in a local sandbox on a scratch repository, commits, and
// its conversation is captured and continued in a fresh sandbox.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { claudeAgent, claudeConversationStore } from "@outpost/agent-claude";
import { progressReporter } from "@outpost/cli";
import { isOutpostError } from "@outpost/core";
import { dispatch, type DispatchResult } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { startModelServer } from "@outpost/testkit/model-server";
import { scratchRepository } from "../scratch-repository.js";
import { demoScript } from "./demo-script.js";

const live = process.stdout.isTTY === true;
const bold = (text: string): string => (live ? `\u001b[1m${text}\u001b[0m` : text);

function claudeExecutable(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("@anthropic-ai/claude-code/package.json");
  return join(dirname(manifest), (require(manifest) as { bin: { claude: string } }).bin.claude);
}

async function run(): Promise<number> {
  const server = await startModelServer({ script: demoScript() });
  const repository = scratchRepository("outpost-demo-");
  const conversationHome = mkdtempSync(join(tmpdir(), "outpost-demo-conversations-"));
  const agent = claudeAgent({
    baseUrl: server.url,
    apiKey: "sk-ant-offline-demo",
    executable: claudeExecutable(),
    maxRetries: 0,
    storage: claudeConversationStore(),
  });
  console.log(bold("Outpost demo (offline)"));
  console.log(`  scripted model server: ${server.url}`);
  console.log(`  scratch repository:    ${repository}\n`);
  try {
    const first = await turn("1. Claude Code writes and commits a file, on a branch merged back into main", () =>
      dispatch({
        agent,
        sandboxProvider: localProvider({ home: "private" }),
        repository,
        conversationHome,
        label: "demo",
        branch: { mode: "integrate" },
        brief: "Create hello.txt with a greeting and commit it.",
        observe: (observation) => reporter.event(observation),
        warn: (message) => reporter.warn(message),
      }),
    );
    const commit = first.commits[0];
    if (!commit) throw new Error("the agent made no commit");
    console.log(
      `\n  commit:  ${execFileSync("git", ["log", "-1", "--format=%h %s", commit], { cwd: repository, encoding: "utf8" }).trim()}`,
    );
    console.log(`  landed on branch ${bold(first.branch ?? "?")} (worked on ${first.workBranch}, now merged and removed)`);
    console.log(`  conversation ${first.conversationId} captured to ${first.conversation?.file}\n`);

    const second = await turn("2. The conversation continues in a fresh sandbox", () =>
      dispatch({
        agent,
        sandboxProvider: localProvider({ home: "private" }),
        repository,
        conversationHome,
        label: "demo, turn 2",
        brief: "TURN2: what did you do in the previous turn?",
        continuation: { id: first.conversationId! },
        observe: (observation) => reporter.event(observation),
        warn: (message) => reporter.warn(message),
      }),
    );
    const remembered = second.text.includes("history_has_turn1=true") && second.conversationId === first.conversationId;
    console.log(`\n  same conversation: ${second.conversationId === first.conversationId}; the second turn saw the first: ${remembered}`);
    if (server.problems.length > 0) console.log(`  model server problems: ${server.problems.join("; ")}`);
    return remembered ? 0 : 1;
  } catch (error) {
    console.error(`\ndemo failed: ${isOutpostError(error) ? `${error.code}: ${error.message}` : String(error)}`);
    return 1;
  } finally {
    await server.close();
    // The scratch repository and the conversation home are the demo's alone: nothing stays in the temp folder.
    for (const directory of [repository, conversationHome]) rmSync(directory, { recursive: true, force: true });
  }
}

let reporter = progressReporter(process.stdout, process.stderr, live);

async function turn(title: string, work: () => Promise<DispatchResult>): Promise<DispatchResult> {
  console.log(bold(title));
  reporter = progressReporter(process.stdout, process.stderr, live);
  reporter.start({ agent: "claude", provider: "local" });
  try {
    const result = await work();
    reporter.close();
    reporter.result(result, "--agent claude");
    return result;
  } finally {
    reporter.close();
  }
}

process.exitCode = await run();
