import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { assertHostOwnedDirectories, OutpostError, readHostOwnedFile } from "@outpost/core";
import type { OutpostConfig } from "./config-schema.js";
import { jsonKeyLine, jsonErrorLine } from "./json-key-line.js";

/** The config file, relative to the checkout root. */
export const CONFIG_FILE = join(".outpost", "config.json");
const MAX_CONFIG_BYTES = 64 * 1024;

export interface LoadedConfig {
  readonly path: string;
  readonly config: OutpostConfig;
}

/** The checkout root above `from` (the nearest folder holding `.git`), or undefined outside a checkout. */
export function checkoutRoot(from: string): string | undefined {
  let directory = resolve(from);
  for (;;) {
    if (existsSync(join(directory, ".git"))) return directory;
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

/**
 * Reads and validates `<root>/.outpost/config.json`; absent: undefined. Like every file the host reads back
 * from `.outpost`, it must be a regular file, on a path of directories, that only the host user could have
 * written: a sandbox that wrote it would choose the next run's agent, image and network.
 */
export async function readConfig(root: string): Promise<LoadedConfig | undefined> {
  const path = join(root, CONFIG_FILE);
  const what = "the defaults of outpost run";
  await assertHostOwnedDirectories(join(root, ".outpost"), dirname(path), { what });
  const bytes = await readHostOwnedFile(path, { what, maxBytes: MAX_CONFIG_BYTES });
  if (bytes === undefined) return undefined;
  const text = bytes.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const line = jsonErrorLine(text, error as Error);
    throw invalid(`${path}${line ? `:${line}` : ""}: not JSON (${(error as Error).message})`, path);
  }
  // The schema library loads only when there is a file to check: a run without one does not pay for it.
  const { configIssues } = await import("./config-schema.js");
  const { config, issues } = configIssues(value);
  if (config) return { path, config };
  const lines = issues.map((issue) => {
    const line = issue.key === undefined ? undefined : jsonKeyLine(text, issue.key);
    return `${path}${line ? `:${line}` : ""}: ${issue.key ? `"${issue.key}": ` : ""}${issue.message}`;
  });
  throw invalid(lines.join("\n"), path);
}

function invalid(lines: string, path: string): OutpostError {
  return new OutpostError("configuration", `${lines}\nFix the file, or move it away and run \`outpost init\` to write a fresh one.`, {
    details: { path },
  });
}
