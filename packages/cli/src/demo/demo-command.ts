import { rmSync } from "node:fs";
import { OutpostError } from "@outpost/core";
import type { ProgramIo } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { demoAgent, installedAgent } from "./demo-agent.js";
import { containerProviders, demoPlacement } from "./demo-placement.js";
import { demoScript, REMEMBERED } from "./demo-script.js";
import { lastCommit, scratchCheckout } from "./scratch-checkout.js";
import { runCli } from "./run-cli.js";

export interface DemoFlags {
  readonly agent?: string;
  readonly executable?: string;
  /** Keep the scratch folder (repository and conversations) instead of removing it. */
  readonly keep?: boolean;
  /** `local` (default) or a provider of containers on this machine: where both turns run. */
  readonly provider?: string;
  /** Container providers: the agent image. */
  readonly image?: string;
  /** Container providers: extra mounts, as `outpost run --volume`. */
  readonly volume?: readonly string[];
}

/**
 * `outpost demo`: offline, no key. A scripted model server on 127.0.0.1 stands in for the vendor API; the
 * real `outpost run` runs the agent's real CLI in a local sandbox on a scratch repository (a commit merged
 * back), then continues the captured conversation in a fresh sandbox.
 */
export async function demoCommand(flags: DemoFlags, io: ProgramIo): Promise<number> {
  const say = (text: string): void => void io.stdout.write(`${text}\n`);
  let server: { readonly url: string; readonly problems: readonly string[]; close(): Promise<void> };
  let agent: { readonly name: string; readonly executable: string | undefined };
  const provider = flags.provider ?? "local";
  let placement: "host" | "mounted";
  try {
    placement = await demoPlacement(provider);
    const models = await importModelServer();
    // In a container the agent's CLI is the image's (`outpost image build`), found by name there.
    agent =
      placement === "mounted"
        ? { name: flags.agent ?? installedAgent(), executable: flags.executable }
        : flags.executable
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
  const common = [
    "--agent",
    agent.name,
    ...(agent.executable ? ["--executable", agent.executable] : []),
    "--provider",
    provider,
    // The container shares the host's network, so 127.0.0.1 is the scripted server's.
    ...(placement === "host" ? [] : ["--network", "host", ...(flags.image ? ["--image", flags.image] : [])]),
    ...(flags.volume ?? []).flatMap((volume) => ["--volume", volume]),
  ];
  const where = ["--repository", checkout.repository, "--conversation-home", checkout.conversationHome, "--base-url", server.url];
  // Any key: the scripted server checks none, and nothing leaves this machine.
  const variables = { OUTPOST_API_KEY: "offline-demo-key" };
  try {
    say(`Outpost demo (offline): ${agent.name} against a scripted model server at ${server.url}`);
    say(`  scratch repository: ${checkout.repository}\n`);
    say(`1. outpost run --agent ${agent.name} --provider ${provider} --branch integrate "Create hello.txt …"`);
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
    const containers = placement === "host" ? await containerProviders() : [];
    if (containers.length > 0)
      say(
        `Next: \`outpost image build --agent ${agent.name}\` and \`outpost demo --provider ${containers[0]}\` for the same in a container;`,
      );
    say(`${containers.length > 0 ? "  or" : "Next:"} \`outpost init\` in your repository, then \`outpost run --help\`.`);
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
