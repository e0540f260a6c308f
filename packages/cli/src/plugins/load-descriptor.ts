import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  DESCRIPTOR_SPECIFICATION_VERSION,
  OutpostError,
  type AgentDescriptor,
  type ProviderDescriptor,
  type QueueDescriptor,
  type TransportDescriptor,
} from "@outpost/core";
import type { InstalledPlugin, PluginKind } from "./find-plugins.js";

type AnyDescriptor = AgentDescriptor | ProviderDescriptor | QueueDescriptor | TransportDescriptor;
type DescriptorOf<K> = K extends "agent"
  ? AgentDescriptor
  : K extends "provider"
    ? ProviderDescriptor
    : K extends "queue"
      ? QueueDescriptor
      : TransportDescriptor;

/** Imports an installed plugin's `descriptor` (only the command that needs it pays for the import) and checks it. */
export async function loadDescriptor<K extends PluginKind>(plugin: InstalledPlugin & { kind: K }): Promise<DescriptorOf<K>> {
  const specifier = plugin.besideCli
    ? `${plugin.packageName}${plugin.descriptorPath === "." ? "" : plugin.descriptorPath.slice(1)}`
    : pathToFileURL(join(plugin.directory, await exportTarget(plugin))).href;
  let module: { descriptor?: unknown };
  try {
    module = (await import(specifier)) as { descriptor?: unknown };
  } catch (error) {
    throw new OutpostError(
      "configuration",
      `Could not load the ${plugin.kind} plugin ${plugin.packageName} (${plugin.directory}): ${error instanceof Error ? error.message : String(error)}. Reinstall it.`,
      { cause: error },
    );
  }
  return checked(module.descriptor, plugin) as DescriptorOf<K>;
}

/** What each kind must hold besides kind and name: its factory, or (a queue) its commands. */
const REQUIRED = { agent: "createAgent", provider: "createProvider", queue: "commands", transport: "createTransport" } as const;

function checked(descriptor: unknown, plugin: InstalledPlugin): AnyDescriptor {
  const candidate = descriptor as
    ({ kind?: unknown; name?: unknown; specificationVersion?: unknown } & Record<string, unknown>) | undefined;
  const required = REQUIRED[plugin.kind];
  const member = candidate?.[required];
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    candidate.kind !== plugin.kind ||
    typeof candidate.name !== "string" ||
    (required === "commands" ? !Array.isArray(member) : typeof member !== "function")
  ) {
    throw new OutpostError(
      "configuration",
      `${plugin.packageName} declares an outpost ${plugin.kind} but its export ${plugin.descriptorPath} has no valid \`descriptor\` (kind "${plugin.kind}", name, ${required}).`,
      { details: { plugin: plugin.packageName } },
    );
  }
  if (candidate.specificationVersion !== DESCRIPTOR_SPECIFICATION_VERSION) {
    throw new OutpostError(
      "configuration",
      `${plugin.packageName} has a descriptor of specificationVersion ${JSON.stringify(candidate.specificationVersion)}; ` +
        `this outpost reads "${DESCRIPTOR_SPECIFICATION_VERSION}". Install versions of the plugin and @outpost/cli that agree.`,
      {
        details: {
          plugin: plugin.packageName,
          specificationVersion: String(candidate.specificationVersion),
          supported: [DESCRIPTOR_SPECIFICATION_VERSION],
        },
      },
    );
  }
  return candidate as unknown as AnyDescriptor;
}

/** The file an export path maps to through the package's `exports` (import or default condition), else `main`. */
async function exportTarget(plugin: InstalledPlugin): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  const manifest = JSON.parse(await readFile(join(plugin.directory, "package.json"), "utf8")) as { exports?: unknown; main?: unknown };
  const exportsField = manifest.exports;
  const entry =
    typeof exportsField === "string" && plugin.descriptorPath === "."
      ? exportsField
      : typeof exportsField === "object" && exportsField !== null
        ? (exportsField as Record<string, unknown>)[plugin.descriptorPath]
        : undefined;
  const target = conditionTarget(entry) ?? (plugin.descriptorPath === "." && typeof manifest.main === "string" ? manifest.main : undefined);
  if (target === undefined)
    throw new OutpostError(
      "configuration",
      `${plugin.packageName} exports no ${plugin.descriptorPath} for import, but its package.json names it as the outpost descriptor.`,
    );
  return target;
}

function conditionTarget(entry: unknown): string | undefined {
  if (typeof entry === "string") return entry;
  if (typeof entry !== "object" || entry === null) return undefined;
  const conditions = entry as Record<string, unknown>;
  return conditionTarget(conditions.import) ?? conditionTarget(conditions.default);
}
