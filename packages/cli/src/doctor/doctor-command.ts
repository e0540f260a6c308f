import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutpostError, type CliProbeTarget, type SandboxLease } from "@outpost/core";
import { agentDescriptor } from "../agents/load-agent.js";
import { findPlugins, type InstalledPlugin } from "../plugins/find-plugins.js";
import { loadDescriptor } from "../plugins/load-descriptor.js";
import { chooseProvider } from "../run/choose-provider.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import type { ProgramIo } from "../program.js";
import { agentReport, canRun, type AgentCliReport } from "./agent-report.js";
import { describeAgents, describeEnvFile, describeProviders } from "./doctor-table.js";
import { hostTarget } from "./host-target.js";
import { envFileReport, type EnvFileReport } from "./env-file-report.js";

export type { AgentCliReport } from "./agent-report.js";
export type { EnvFileReport } from "./env-file-report.js";

/** One provider: whether what it needs (e.g. an engine) is there, and what to do when it is not. */
export interface ProviderReport {
  readonly provider: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface DoctorFlags {
  readonly json?: boolean;
  /** Agents asked about (repeatable `--agent`): each must be able to run. Omitted: every installed one, and one must. */
  readonly agent?: readonly string[];
  /** Probe the CLIs in a lease of this provider instead of on the host; it must be ready. */
  readonly provider?: string;
}

/**
 * `outpost doctor`: each agent's CLI probed as a run would start it (its variables, its executable, the
 * project's node_modules/.bin on the host, the checkout's `.outpost/.env`), and each provider's check. Exits 1
 * when something asked about cannot run (a refused `.outpost/.env` stops every run); every report is printed first. Whatever the probes write (caches) goes with a scratch directory.
 */
export async function doctorCommand(flags: DoctorFlags, io: ProgramIo): Promise<number> {
  const scratch = await mkdtemp(join(tmpdir(), "outpost-doctor-"));
  let lease: SandboxLease | undefined;
  try {
    const providers: ProviderReport[] = [];
    for (const plugin of findPlugins("provider")) providers.push(await providerReport(plugin));
    let target: CliProbeTarget = hostTarget(scratch);
    let cacheDirectory = join(scratch, "cache");
    let projectDirectory: string | undefined = process.cwd();
    if (flags.provider !== undefined) {
      const provider = await chooseProvider({ provider: flags.provider, options: {} });
      lease = await provider.acquire({ repository: scratch, directory: scratch, gitDirectories: [], variables: {} });
      target = lease;
      cacheDirectory = provider.placement === "remote" ? `${lease.root}/.outpost-doctor-cache` : join(scratch, "cache");
      projectDirectory = provider.placement === "host" ? process.cwd() : undefined;
    }
    // A run gives every agent command the checkout's .outpost/.env: the probes get it too, and keys there count.
    const envFile = await envFileReport(process.cwd());
    const names = flags.agent?.length ? flags.agent : findPlugins("agent").map((plugin) => plugin.name);
    const agents: AgentCliReport[] = [];
    for (const name of names) {
      const descriptor = await agentDescriptor(name);
      agents.push(
        await agentReport(descriptor, {
          target,
          cacheDirectory,
          envFile: envFile.variables,
          ...(projectDirectory ? { projectDirectory } : {}),
        }),
      );
    }
    if (flags.json) {
      for (const entry of agents) io.stdout.write(`${JSON.stringify({ type: "agent-cli", ...entry })}\n`);
      for (const entry of providers) io.stdout.write(`${JSON.stringify({ type: "provider", ...entry })}\n`);
      if (envFile.report) io.stdout.write(`${JSON.stringify({ type: "env-file", ...envFile.report })}\n`);
    } else {
      io.stdout.write(`${describeAgents(agents)}\n${describeProviders(providers)}`);
      if (envFile.report) io.stdout.write(`\n${describeEnvFile(envFile.report)}`);
    }
    return verdict(flags, agents, providers, envFile.report, io);
  } catch (caught) {
    const error = OutpostError.isInstance(caught)
      ? caught
      : new OutpostError("process", `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}.`, { cause: caught });
    io.stderr.write(`outpost: ${error.code}: ${error.message}\n`);
    return exitCodeFor(error.code);
  } finally {
    await lease?.release().catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Asked about by name: each must work. Asked about nothing: at least one agent and one provider must. */
function verdict(
  flags: DoctorFlags,
  agents: readonly AgentCliReport[],
  providers: readonly ProviderReport[],
  envFile: EnvFileReport | undefined,
  io: ProgramIo,
): number {
  const failing: string[] = [];
  if (envFile?.status === "refused") failing.push(`every run here (${envFile.path} is refused)`);
  const blocked = agents.filter((entry) => !canRun(entry)).map((entry) => `--agent ${entry.agent}`);
  if (flags.agent?.length) failing.push(...blocked);
  else if (agents.length > 0 && blocked.length === agents.length) failing.push("every agent");
  const asked = flags.provider === undefined ? providers : providers.filter((entry) => entry.provider === flags.provider);
  const down = asked.filter((entry) => !entry.ok).map((entry) => `--provider ${entry.provider}`);
  if (flags.provider !== undefined) failing.push(...down);
  else if (providers.length > 0 && down.length === providers.length) failing.push("every provider");
  if (failing.length === 0) return EXIT_CODES.success;
  if (!flags.json) io.stderr.write(`outpost: cannot run: ${failing.join(", ")}. Fix what the table says for each.\n`);
  return EXIT_CODES.failure;
}

async function providerReport(plugin: InstalledPlugin): Promise<ProviderReport> {
  const descriptor = await loadDescriptor(plugin as InstalledPlugin & { kind: "provider" });
  const check = (await descriptor.check?.()) ?? { ok: true, detail: "the plugin has no check" };
  return { provider: descriptor.name, ok: check.ok, detail: check.detail };
}
