import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { HOST_READ_PATHS } from "../src/workspace/host-read-paths.js";

// The class, not the instance: every place under `.outpost` that host code names must be in HOST_READ_PATHS
// (so the sandbox boundary covers it and the e2e suite plants a file there), or be listed below as a place
// the host never reads back from the checkout. A new `.outpost/<x>` in the code fails here until it is classified.
const packages = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Host code that may build paths under a checkout's (or a home's) `.outpost`. */
const SCANNED = ["dispatch/src", "conversations/src", "cli/src", "plugin-utils/src", "core/src"];
const PLUGIN_PREFIXES = ["agent-", "provider-", "transport-"];

/** `.outpost` places the code names that the host does not read back from the checkout, and why. */
const NOT_READ_BACK: readonly { readonly file: string; readonly path: string; readonly why: string }[] = [
  { file: "dispatch/src/remote/sandbox-work.ts", path: ".outpost/sync-back", why: "in the sandbox's home (lease.home)" },
  { file: "dispatch/src/remote/seed-repository.ts", path: ".outpost/seed.bundle", why: "in the sandbox's home (lease.home)" },
  { file: "dispatch/src/bootstrap/install-directory.ts", path: ".outpost/cli", why: "in the sandbox's home: CLIs bootstrap installs" },
  { file: "agent-gemini/src/gemini-settings.ts", path: ".outpost/agents/gemini", why: "in the agent's home, read by the Gemini CLI only" },
];

interface Found {
  readonly file: string;
  readonly path: string;
}

function sourceFiles(): string[] {
  const roots = [
    ...SCANNED,
    ...readdirSync(packages)
      .filter((name) => PLUGIN_PREFIXES.some((prefix) => name.startsWith(prefix)))
      .map((name) => `${name}/src`),
  ];
  const files: string[] = [];
  const visit = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(path);
    }
  };
  for (const root of roots) visit(join(packages, root));
  return files;
}

/** Comments say where things are; only code builds paths. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1");
}

/** The literal segments after `.outpost` in each way the code builds such a path; a computed segment ends it. */
export function outpostPaths(text: string): string[] {
  const found: string[] = [];
  const segments = (list: string) => [...list.matchAll(/"([^"]*)"/g)].map((match) => match[1]!);
  const add = (parts: readonly string[]) => found.push([".outpost", ...parts.flatMap((part) => part.split("/")).filter(Boolean)].join("/"));
  // join(outpostDirectory(root), "storage", "objects")
  for (const match of text.matchAll(/outpostDirectory\([^()]*\)((?:\s*,\s*"[^"]*")*)/g)) add(segments(match[1]!));
  // join(root, ".outpost", "workspaces", id), [".outpost", "cli"]
  for (const match of text.matchAll(/"\.outpost"((?:\s*,\s*"[^"]*")*)/g)) add(segments(match[1]!));
  // ".outpost/.env", `.outpost/agents/gemini/settings-${digest}.json`
  for (const match of text.matchAll(/(["'`])\.outpost\/([^"'`$]*)(\$\{)?/g)) {
    const parts = match[2]!.split("/");
    add(match[3] === undefined ? parts : parts.slice(0, -1));
  }
  return found;
}

function scan(): Found[] {
  return sourceFiles().flatMap((file) =>
    outpostPaths(code(readFileSync(file, "utf8"))).map((path) => ({ file: relative(packages, file).split("\\").join("/"), path })),
  );
}

/** In the table: the place itself, inside a `tree` of it, or a folder above its places joined with a computed name. */
function inTable(path: string): boolean {
  return (
    path === ".outpost" ||
    HOST_READ_PATHS.some(
      (entry) => entry.path === path || (entry.kind === "tree" && path.startsWith(`${entry.path}/`)) || entry.path.startsWith(`${path}/`),
    )
  );
}

describe("HOST_READ_PATHS", () => {
  const found = scan();

  it("the scan sees how the code builds paths under .outpost", () => {
    expect(outpostPaths('join(outpostDirectory(root), "storage", "objects")')).toEqual([".outpost/storage/objects"]);
    expect(outpostPaths('join(root, ".outpost", "workspaces", id)')).toEqual([".outpost/workspaces"]);
    expect(outpostPaths('const a = [".outpost", "cli"]; const b = join(".outpost", ".env");')).toEqual([".outpost/cli", ".outpost/.env"]);
    expect(outpostPaths("path: `.outpost/agents/gemini/settings-${digest}.json`")).toEqual([".outpost/agents/gemini"]);
    expect(found).toContainEqual({ file: "dispatch/src/maintenance/read-activity.ts", path: ".outpost/storage/activity" });
    expect(found).toContainEqual({ file: "conversations/src/host/conversation-directory.ts", path: ".outpost/conversations" });
  });

  it("holds every place under .outpost that host code names, unless the host never reads it back from the checkout", () => {
    const unclassified = found.filter(
      ({ file, path }) => !inTable(path) && !NOT_READ_BACK.some((entry) => entry.file === file && entry.path === path),
    );
    expect(unclassified).toEqual([]);
  });

  it("lists no exception the code no longer has", () => {
    const stale = NOT_READ_BACK.filter((entry) => !found.some(({ file, path }) => file === entry.file && path === entry.path));
    expect(stale).toEqual([]);
  });

  it("names a reader that exists for each place", () => {
    for (const entry of HOST_READ_PATHS) {
      const reader = entry.reader.split(":")[0]!.split(", ")[0]!;
      if (reader === "git") continue;
      const file = reader.startsWith("@outpost/")
        ? join(packages, reader.split(" ")[0]!.slice("@outpost/".length), "src", reader.split(" ")[1]!)
        : join(packages, "dispatch", "src", reader);
      expect(() => readFileSync(file), `${entry.path}: ${file}`).not.toThrow();
    }
  });
});
