import { rmSync } from "node:fs";
import { OutpostError } from "@outpost/core";
import type { ProgramIo } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { demoAgent } from "./demo-agent.js";
import { demoScript, REMEMBERED } from "./demo-script.js";
import { lastCommit, scratchCheckout } from "./scratch-checkout.js";
import { runCli } from "./run-cli.js";

export interface DemoFlags {
  readonly agent?: string;
  readonly executable?: string;
  /** Keep the scratch folder (repository and conversations) instead of removing it. */
  readonly keep?: boolean;
}

/**
 * `outpost demo`: offline, no key. A scripted model server on 127.0.0.1 stands in for the vendor API; the
 * real `outpost run` runs the agent's real CLI in a local sandbox on a scratch repository (a commit merged
 * back), then continues the captured conversation in a fresh sandbox.
 */
export async function demoCommand(flags: DemoFlags, io: ProgramIo): Promise<number> {
  const say = (text: string): void => void io.stdout.write(`${text}\n`);
  let server: { readonly url: string; readonly problems: readonly string[]; close(): Promise<void> };
  let agent;
  try {
    const models = await importModelServer();
    agent = flags.executable
      ? { name: flags.agent ?? (await demoAgent(undefined)).name, executable: flags.executable }
      : await demoAgent(flags.agent);
    server = await models.startModelServer({ script: demoScript(models) });
  } catch (error) {
    if (!OutpostError.isInstance(error)) throw error;
    io.stderr.write(`outpost: ${error.code}: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
  const checkout = await scratchCheckout().catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  const common = ["--agent", agent.name, "--executable", agent.executable, "--provider", "local"];
  const where = ["--repository", checkout.repository, "--conversation-home", checkout.conversationHome, "--base-url", server.url];
  // Any key: the scripted server checks none, and nothing leaves this machine.
  const variables = { OUTPOST_API_KEY: "offline-demo-key" };
  try {
    say(`Outpost demo (offline): ${agent.name} against a scripted model server at ${server.url}`);
    say(`  scratch repository: ${checkout.repository}\n`);
    say(`1. outpost run --agent ${agent.name} --provider local --branch integrate "Create hello.txt …"`);
    const first = await runCli(
      ["run", ...common, ...where, "--branch", "integrate", "--label", "demo", "Create hello.txt with a greeting and commit it."],
      variables,
      io,
    );
    if (first.status !== 0 || !first.conversationId) return failed(first.status, "the first run did not finish with a conversation");
    say(`\n  commit on main: ${await lastCommit(checkout.repository)}\n`);
    say(`2. outpost run --agent ${agent.name} --continue ${first.conversationId} "TURN2: what did you do …"`);
    const second = await runCli(
      ["run", ...common, ...where, "--continue", first.conversationId, "TURN2: what did you do in the previous turn?"],
      variables,
      io,
    );
    if (second.status !== 0) return failed(second.status, "the continued run failed");
    const remembered = second.output.includes(REMEMBERED) && server.problems.length === 0;
    say(`\n${remembered ? "✓" : "✗"} one commit, and a continuation that saw the first turn (${REMEMBERED})`);
    if (server.problems.length > 0) say(`  model server problems: ${server.problems.join("; ")}`);
    say("Next: `outpost init` in your repository, then `outpost run --help`.");
    return remembered ? EXIT_CODES.success : EXIT_CODES.failure;
  } finally {
    await server.close();
    if (flags.keep) say(`kept: ${checkout.root}`);
    else rmSync(checkout.root, { recursive: true, force: true });
  }

  function failed(status: number, why: string): number {
    io.stderr.write(`outpost: demo: ${why} (exit ${status}). Run again with --keep to look at ${checkout.root}.\n`);
    return status === 0 ? EXIT_CODES.failure : status;
  }
}

/** The scripted model server ships in @outpost/testkit, an optional peer: loaded only here, with a message when absent. */
async function importModelServer(): Promise<typeof import("@outpost/testkit/model-server")> {
  try {
    return await import("@outpost/testkit/model-server");
  } catch (error) {
    throw new OutpostError(
      "configuration",
      "outpost demo needs the scripted model server from @outpost/testkit: npm install @outpost/testkit (beside @outpost/cli; add -g when the CLI is installed globally).",
      { cause: error },
    );
  }
}
