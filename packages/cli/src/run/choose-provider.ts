import { OutpostError, type ProviderDescriptor, type SandboxProvider } from "@outpost/core";
import { findPlugins, type InstalledPlugin } from "../plugins/find-plugins.js";
import { installedPlugin } from "../plugins/installed-plugin.js";
import { loadDescriptor } from "../plugins/load-descriptor.js";

export interface ProviderChoice {
  /** Omitted: the first installed provider that reports itself available (e.g. a container engine answers). */
  readonly provider?: string;
  /** Provider options from the command line, by the names descriptors use; undefined entries are not given. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Defaults from the config file: used where the provider reads them, ignored where it does not. */
  readonly defaults?: Readonly<Record<string, unknown>>;
}

/** The provider named on the command line, else the first available one, built from its descriptor. */
export async function chooseProvider(choice: ProviderChoice): Promise<SandboxProvider> {
  const descriptor =
    choice.provider === undefined ? await firstAvailable() : await providerDescriptor(installedPlugin("provider", choice.provider));
  const given = Object.fromEntries(Object.entries(choice.options).filter(([, value]) => value !== undefined));
  const read = new Set(descriptor.options.map((option) => option.name));
  const foreign = Object.keys(given).filter((name) => !read.has(name));
  if (foreign.length > 0) {
    const flags = foreign.map(flagName).join(", ");
    const accepted = descriptor.options.map((option) => flagName(option.name)).join(", ") || "none";
    throw new OutpostError(
      "configuration",
      `${flags} ${foreign.length === 1 ? "does" : "do"} not apply to --provider ${descriptor.name} (it reads: ${accepted}). Drop the flag, or choose a provider that reads it.`,
      {
        details: { provider: descriptor.name, options: foreign },
      },
    );
  }
  const defaults = Object.entries(choice.defaults ?? {}).filter(([name, value]) => value !== undefined && read.has(name));
  return descriptor.createProvider({ ...Object.fromEntries(defaults), ...given });
}

function providerDescriptor(plugin: InstalledPlugin): Promise<ProviderDescriptor> {
  return loadDescriptor(plugin as InstalledPlugin & { kind: "provider" });
}

async function firstAvailable(): Promise<ProviderDescriptor> {
  const installed = findPlugins("provider");
  const unavailable: string[] = [];
  for (const plugin of installed) {
    const descriptor = await providerDescriptor(plugin);
    if (descriptor.available === undefined) continue;
    if (await descriptor.available()) return descriptor;
    const check = await descriptor.check?.();
    unavailable.push(`${descriptor.name}: ${check?.detail ?? "not available"}`);
  }
  const names = installed.map((plugin) => plugin.name).join(", ") || "none";
  throw new OutpostError(
    "configuration",
    `No sandbox provider is available by default (${unavailable.join("; ") || "none offers itself"}), so there is no default sandbox. Fix that, or pass --provider <name> (installed: ${names}).`,
    {
      details: { installed: installed.map((plugin) => plugin.name) },
    },
  );
}

/** `memoryMb` → `--memory-mb`. */
function flagName(option: string): string {
  return `--${option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}
