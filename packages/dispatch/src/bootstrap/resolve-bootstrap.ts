import { OutpostError, type AgentAdapter, type ReplayAgent } from "@outpost/core";
import type { BootstrapOptions, BootstrapSource } from "./bootstrap-options.js";
import { parseSha512 } from "./sha512-digest.js";

/** What installs one bootstrap name's CLI. */
export type BootstrapInstaller =
  | { readonly kind: "npm"; readonly name: string; readonly npmPackage: string; readonly version: string }
  | { readonly kind: "archive"; readonly name: string; readonly source: string; readonly sha512: string; readonly executable: string };

export interface ResolvedBootstrap {
  readonly enabled: boolean;
  readonly registry?: string;
  /** The installer of each candidate agent that names a bootstrap CLI. */
  readonly installers: ReadonlyMap<AgentAdapter | ReplayAgent, BootstrapInstaller>;
}

const NPM_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const EXACT_VERSION = /^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/;
const PLAIN_COMMAND = /^[A-Za-z0-9._-]+$/;

/**
 * Checks the `bootstrap` option and every candidate's bootstrap name before anything is allocated: a name is
 * known when `sources` gives it, or when it is the name of an agent (among the candidates) that carries its
 * pinned CLI. An unknown name fails with `configuration`.
 */
export function resolveBootstrap(option: unknown, candidates: readonly (AgentAdapter | ReplayAgent)[]): ResolvedBootstrap {
  if (option !== undefined && typeof option !== "boolean" && (typeof option !== "object" || option === null || Array.isArray(option)))
    throw configuration("bootstrap must be true, false or { registry?, sources? }.");
  const settings = (typeof option === "object" ? option : {}) as BootstrapOptions;
  const registry = checkRegistry(settings.registry);
  const sources = checkSources(settings.sources);
  const pinned = new Map<string, BootstrapInstaller>();
  for (const candidate of candidates) {
    if (candidate.cli) pinned.set(candidate.name, npmInstaller(candidate.name, candidate.cli, `agent ${candidate.name}'s cli`));
  }
  const installers = new Map<AgentAdapter | ReplayAgent, BootstrapInstaller>();
  for (const candidate of candidates) {
    const name: unknown = candidate.bootstrap;
    if (name === undefined) continue;
    if (typeof name !== "string" || name === "")
      throw configuration(`Agent ${candidate.name}'s bootstrap must be the name of a built-in agent (e.g. "claude").`);
    const installer = sources.get(name) ?? pinned.get(name);
    if (!installer) {
      const known = [...new Set([...sources.keys(), ...pinned.keys()])].map((known) => JSON.stringify(known)).join(", ") || "none";
      throw configuration(
        `Agent ${candidate.name} names an unknown bootstrap CLI ${JSON.stringify(name)} (known here: ${known}). Use the name of a built-in ` +
          `agent whose CLI is pinned, or give its source in bootstrap: { sources: { ${JSON.stringify(name)}: { npm } or { archive } } }.`,
      );
    }
    if (installer.kind === "archive" && candidate.kind === "cli" && PLAIN_COMMAND.test(candidate.executable)) {
      const file = installer.executable.split("/").at(-1);
      if (file !== candidate.executable)
        throw configuration(
          `bootstrap.sources.${name}.archive.executable is ${JSON.stringify(installer.executable)}, but agent ` +
            `${candidate.name} runs ${JSON.stringify(candidate.executable)}. Name the archive's ${candidate.executable} file.`,
        );
    }
    installers.set(candidate, installer);
  }
  return { enabled: option !== false, ...(registry ? { registry } : {}), installers };
}

function checkRegistry(registry: unknown): string | undefined {
  if (registry === undefined) return undefined;
  if (typeof registry !== "string" || !/^https?:\/\/[^\s]+$/.test(registry))
    throw configuration(`bootstrap.registry must be an http(s) URL of an npm registry, got ${JSON.stringify(registry)}.`);
  return registry;
}

function checkSources(sources: unknown): Map<string, BootstrapInstaller> {
  const checked = new Map<string, BootstrapInstaller>();
  if (sources === undefined) return checked;
  if (typeof sources !== "object" || sources === null || Array.isArray(sources))
    throw configuration(
      "bootstrap.sources must map bootstrap names to { npm: { npmPackage, version } } or { archive: { source, sha512, executable } }.",
    );
  for (const [name, given] of Object.entries(sources as Record<string, BootstrapSource | undefined>)) {
    const where = `bootstrap.sources.${name}`;
    if (given && "npm" in given) checked.set(name, npmInstaller(name, given.npm, where));
    else if (given && "archive" in given) checked.set(name, archiveInstaller(name, given.archive, where));
    else throw configuration(`${where} must be { npm: { npmPackage, version } } or { archive: { source, sha512, executable } }.`);
  }
  return checked;
}

function npmInstaller(name: string, cli: unknown, where: string): BootstrapInstaller {
  const { npmPackage, version } = (cli ?? {}) as { npmPackage?: unknown; version?: unknown };
  if (typeof npmPackage !== "string" || !NPM_NAME.test(npmPackage) || typeof version !== "string" || !EXACT_VERSION.test(version))
    throw configuration(`${where} must be { npmPackage, version } with an npm package name and an exact version such as 2.1.332.`);
  return { kind: "npm", name, npmPackage, version };
}

function archiveInstaller(name: string, archive: unknown, where: string): BootstrapInstaller {
  const { source, sha512, executable } = (archive ?? {}) as { source?: unknown; sha512?: unknown; executable?: unknown };
  if (typeof source !== "string" || source === "") throw configuration(`${where}.archive.source must be a host path or an http(s) URL.`);
  const segments = typeof executable === "string" ? executable.split("/") : [];
  if (segments.length === 0 || segments.some((segment) => !PLAIN_COMMAND.test(segment) || segment === "." || segment === ".."))
    throw configuration(
      `${where}.archive.executable must be a relative path inside the archive, such as bin/agy (no "..", no leading "/").`,
    );
  return { kind: "archive", name, source, sha512: parseSha512(sha512, `${where}.archive.sha512`), executable: segments.join("/") };
}

function configuration(message: string): OutpostError {
  return new OutpostError("configuration", message);
}
