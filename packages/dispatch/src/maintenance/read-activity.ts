import { readdir } from "node:fs/promises";
import { isAbsolute, join, normalize, posix } from "node:path";
import type { ActivityRecord } from "../activity/activity-record.js";
import { outpostDirectory } from "../workspace/outpost-directory.js";
import { readHostFile } from "../workspace/host-written.js";
import { parseIdentity } from "@outpost/plugin-utils";

const DISPATCH_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TEMPORARY_NAME = /^outpost-(staging|home|sandbox-git)-[A-Za-z0-9]{6}$/;
const CONTAINER_ID = /^[0-9a-f]{12,64}$/;
// What a provider's removeSandbox is ever handed: an id, never an option or a path.
const SANDBOX_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * The activity records under `<root>/.outpost/storage/activity`, checked field by field: a record may
 * have been written by anything that could write the checkout, so a path it names is kept only when it
 * is the kind of path a dispatch creates (a worktree under `.outpost/workspaces`, an `outpost-staging-…`
 * or `outpost-home-…` directory), and everything else is dropped.
 */
export async function readActivityRecords(root: string): Promise<ActivityRecord[]> {
  const directory = join(outpostDirectory(root), "storage", "activity");
  const names = await readdir(directory).catch(() => [] as string[]);
  const records: ActivityRecord[] = [];
  for (const name of names.sort()) {
    const id = name.replace(/\.json$/, "");
    if (!name.endsWith(".json") || !DISPATCH_ID.test(id)) continue;
    // A record another user could have written is refused by name: clean acts on what records say.
    const bytes = await readHostFile(join(directory, name), { what: "an activity record", code: "workspace", root });
    const raw = parseRecord(bytes);
    const record = raw && checked(raw, id, root);
    if (record) records.push(record);
  }
  return records;
}

function checked(raw: Record<string, unknown>, id: string, root: string): ActivityRecord | undefined {
  if (raw.dispatchId !== id) return undefined;
  const text = (key: string): string | undefined => (typeof raw[key] === "string" ? raw[key] : undefined);
  const state = raw.state === "failed" || raw.state === "finished" ? raw.state : "running";
  const workspaces = join(outpostDirectory(root), "workspaces");
  const directory = text("directory");
  const inside =
    directory !== undefined &&
    isAbsolute(directory) &&
    normalize(directory) === directory &&
    directory.startsWith(`${workspaces}/`) &&
    !directory.slice(workspaces.length + 1).includes("/");
  const temporary = (key: string): string | undefined => {
    const path = text(key);
    return path && isAbsolute(path) && normalize(path) === path && TEMPORARY_NAME.test(path.split("/").pop()!) ? path : undefined;
  };
  const mode =
    raw.mode === "named" || raw.mode === "integrate" || raw.mode === "current" ? (raw.mode as ActivityRecord["mode"]) : undefined;
  const error = raw.error as { code?: unknown; message?: unknown } | undefined;
  const container = text("container");
  const sandbox = text("sandbox");
  const sandboxRoot = text("sandboxRoot");
  return {
    dispatchId: id,
    agent: text("agent") ?? "?",
    provider: text("provider") ?? "?",
    repository: root,
    directory: inside ? directory : root,
    pid: typeof raw.pid === "number" ? raw.pid : 0,
    startedAt: text("startedAt") ?? "",
    state,
    ...optional("label", text("label")),
    ...optional("branch", text("branch")),
    ...optional("phase", text("phase")),
    ...optional("target", text("target")),
    ...optional("baseline", text("baseline")),
    ...optional("mode", mode),
    ...optional("runner", parseIdentity(raw.runner)),
    ...optional("staging", temporary("staging")),
    ...optional("home", temporary("home")),
    ...optional("sandboxGit", temporary("sandboxGit")),
    ...optional("container", container && CONTAINER_ID.test(container) ? container : undefined),
    ...optional("sandbox", sandbox && SANDBOX_ID.test(sandbox) ? sandbox : undefined),
    // Handed to a provider as its root option: an absolute, normal sandbox path, nothing else.
    ...optional(
      "sandboxRoot",
      sandboxRoot && posix.isAbsolute(sandboxRoot) && posix.normalize(sandboxRoot) === sandboxRoot && !/[\0\n]/.test(sandboxRoot)
        ? sandboxRoot
        : undefined,
    ),
    ...optional(
      "agentProcessGroup",
      Number.isInteger(raw.agentProcessGroup) && (raw.agentProcessGroup as number) > 1 ? (raw.agentProcessGroup as number) : undefined,
    ),
    // Only what the record says this dispatch created, and only inside .outpost/workspaces, is ever removed.
    worktreeCreated: raw.worktreeCreated === true && inside,
    branchCreated: raw.branchCreated === true,
    ...(error && typeof error.code === "string" && typeof error.message === "string"
      ? { error: { code: error.code, message: error.message } }
      : {}),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function parseRecord(bytes: Buffer | undefined): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = bytes === undefined ? undefined : JSON.parse(bytes.toString("utf8"));
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
