import { posix } from "node:path";
import type { SandboxLease } from "@outpost/core";
import type { BootstrapInstaller } from "./resolve-bootstrap.js";
import { freshInstallDirectory } from "./install-directory.js";
import { bootstrapFailure, sandboxShell, tail } from "./sandbox-shell.js";

type NpmInstaller = Extract<BootstrapInstaller, { kind: "npm" }>;

// The npm cache goes inside the install directory and is removed after: the home stays small.
const INSTALL = `set -eu
command -v npm >/dev/null 2>&1 || { echo "npm is not installed" >&2; exit 127; }
prefix=$1; spec=$2
npm_config_cache="$prefix/.npm-cache" npm install --global --prefix "$prefix" --no-audit --no-fund --no-update-notifier --loglevel=error "$spec"
rm -rf "$prefix/.npm-cache"`;

/**
 * `npm install --global --prefix <home>/.outpost/cli/<name>-<version> <package>@<version>` in the sandbox,
 * then checks that the installed package is that exact version. Returns the directory of its executables.
 */
export async function installNpm(
  lease: SandboxLease,
  installer: NpmInstaller,
  registry: string | undefined,
  signal?: AbortSignal,
): Promise<string> {
  const spec = `${installer.npmPackage}@${installer.version}`;
  const prefix = await freshInstallDirectory(lease, `${installer.name}-${installer.version}`, signal);
  const result = await sandboxShell(lease, INSTALL, [prefix, spec], {
    signal,
    deadlineMs: 900_000,
    variables: { ...(registry ? { npm_config_registry: registry } : {}), npm_config_update_notifier: "false" },
  });
  if (result.status === 127)
    throw bootstrapFailure(
      "configuration",
      `npm is not installed in the sandbox, so ${spec} cannot be bootstrapped. Use an image with node ` +
        `and npm, put the CLI in the image (\`outpost image build\`), or give an archive in bootstrap.sources.`,
      result.status,
    );
  if (result.status !== 0)
    throw bootstrapFailure(
      "process",
      `Could not install ${spec} in the sandbox (npm exit ${result.status}): ${tail(result)}. Check that the sandbox ` +
        `reaches the npm registry${registry ? ` ${registry}` : ""} (bootstrap.registry), or put the CLI in the image.`,
      result.status,
    );
  const manifest = posix.join(prefix, "lib", "node_modules", installer.npmPackage, "package.json");
  const read = await sandboxShell(lease, 'cat "$1"', [manifest], { signal });
  const version = read.status === 0 ? manifestVersion(read.stdout) : undefined;
  if (version !== installer.version)
    throw bootstrapFailure(
      "process",
      `npm installed ${installer.npmPackage} ${version === undefined ? "without a readable package.json" : `at version ${JSON.stringify(version.slice(0, 40))}`}, ` +
        `not the pinned ${installer.version}. Check what the registry${registry ? ` ${registry}` : ""} serves.`,
    );
  return posix.join(prefix, "bin");
}

function manifestVersion(text: string): string | undefined {
  try {
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}
