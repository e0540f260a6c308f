import { posix } from "node:path";
import { OutpostError, type AgentAdapter, type SandboxLease } from "@outpost/core";
import type { BootstrapInstaller, ResolvedBootstrap } from "./resolve-bootstrap.js";
import { installArchive } from "./install-archive.js";
import { installNpm } from "./install-npm.js";
import { installPath } from "./install-directory.js";
import { sandboxShell, tail } from "./sandbox-shell.js";

export interface BootstrapInput {
  readonly lease: SandboxLease;
  readonly agent: AgentAdapter;
  /** The variables the agent's commands run with (they may set PATH). */
  readonly variables: Readonly<Record<string, string>>;
  readonly bootstrap: ResolvedBootstrap;
  readonly providerName: string;
  readonly staging: string;
  readonly signal?: AbortSignal;
  readonly diagnostic: (message: string) => void;
}

// Prints "found" when the executable is on PATH, "installed" when an earlier bootstrap left it in $2,
// then the PATH the agent's commands see (only ever put back into the sandbox's own PATH).
const PROBE = `if command -v "$1" >/dev/null 2>&1; then echo found; exit 0; fi
if [ -n "$2" ] && [ ! -L "$2" ] && [ -f "$2/$1" ] && [ -x "$2/$1" ]; then echo installed; fi
printf 'PATH=%s\\n' "$PATH"`;

/**
 * Makes a remote sandbox able to run the agent's CLI: nothing when the executable is on PATH; else, with
 * bootstrap on and a bootstrap name, installs the pinned CLI and returns the agent's variables with its
 * directory first on PATH. Returns undefined when nothing changes. An executable given as a path is the
 * caller's own choice and is left alone.
 */
export async function bootstrapAgent(input: BootstrapInput): Promise<Readonly<Record<string, string>> | undefined> {
  const { lease, agent, bootstrap, signal } = input;
  const installer = bootstrap.installers.get(agent);
  if (!installer || !/^[A-Za-z0-9._-]+$/.test(agent.executable)) return undefined;
  const bin = binDirectory(lease, installer);
  const probe = await sandboxShell(lease, PROBE, [agent.executable, bin], { signal, variables: input.variables });
  if (probe.status !== 0)
    throw new OutpostError(
      "provider",
      `Could not look for ${agent.executable} in the sandbox (exit ${probe.status}): ${tail(probe)}. Check that the image has a POSIX sh.`,
    );
  const lines = probe.stdout.split("\n");
  if (lines[0] === "found") return undefined;
  const path = lines.find((line) => line.startsWith("PATH="))?.slice("PATH=".length) ?? "/usr/local/bin:/usr/bin:/bin";
  if (lines[0] !== "installed") {
    if (!bootstrap.enabled)
      throw new OutpostError(
        "configuration",
        `${agent.executable} is not installed in the ${input.providerName} sandbox and bootstrap is false, so agent ${agent.name} cannot ` +
          `run. Put ${describe(installer)} in the image (\`outpost image build\`), or drop bootstrap: false so that Outpost installs it.`,
      );
    const started = Date.now();
    const installed =
      installer.kind === "npm"
        ? await installNpm(lease, installer, bootstrap.registry, signal)
        : await installArchive(lease, installer, input.staging, signal);
    if (installed !== bin)
      throw new OutpostError(
        "provider",
        `Bootstrap installed ${agent.executable} in ${installed}, expected ${bin}; this is a bug in the engine.`,
      );
    input.diagnostic(`bootstrap: installed ${describe(installer)} for ${agent.name} in ${bin} (${Date.now() - started} ms)`);
  }
  return { ...input.variables, PATH: `${bin}:${path}` };
}

function binDirectory(lease: SandboxLease, installer: BootstrapInstaller): string {
  if (installer.kind === "npm") return posix.join(installPath(lease, `${installer.name}-${installer.version}`), "bin");
  return posix.dirname(posix.join(installPath(lease, `${installer.name}-${installer.sha512.slice(0, 12)}`), installer.executable));
}

function describe(installer: BootstrapInstaller): string {
  return installer.kind === "npm" ? `${installer.npmPackage}@${installer.version}` : `the archive ${installer.source}`;
}
