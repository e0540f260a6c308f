import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, posix } from "node:path";
import type { CommandResult, ConversationContext, ConversationRecord, ConversationStore, SandboxLease } from "@outpost/core";
import { OutpostError } from "@outpost/core";
import {
  assertConversationId,
  conversationDirectory,
  createPathRewriter,
  packDirectory,
  readOriginRecord,
  relocationPairs,
  relocationTo,
  removeSandboxPath,
  rewriteJsonBlock,
  unpackConversationFolder,
  writeConversationFolder,
  type PortableConversationStore,
} from "@outpost/conversations";
import { exportWhenData, replacesHomeCopy, type OpencodeExport } from "./opencode-home-session.js";

export interface OpencodeConversationStoreOptions {
  /** The opencode executable in the sandbox. Default `opencode`. */
  readonly executable?: string;
  /** Largest export accepted, in bytes. Default 256 MiB. */
  readonly maxBytes?: number;
  /** Milliseconds allowed for one `opencode export` or `opencode import`. Default 120 000. */
  readonly deadlineMs?: number;
  /**
   * Where conversations go when the dispatch gives no `conversationHome`: `"user"` (default) is your home
   * directory, as opencode keeps its sessions (they follow you across checkouts); `"repository"` the checkout root.
   */
  readonly defaultHome?: "user" | "repository";
}

/** Keeps opencode from reaching the network while it only moves a session in and out of its database. */
const QUIET = {
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  OPENCODE_DISABLE_SHARE: "1",
};

interface OpencodeOrigin {
  readonly outpost: "opencode-export";
  readonly version: 1;
  readonly id: string;
  readonly workspace: string;
  readonly home: string;
  readonly capturedAt: string;
}

const readOrigin = (folder: string, id: string) =>
  readOriginRecord<OpencodeOrigin>(folder, { outpost: "opencode-export", format: "opencode", id });

/**
 * OpenCode keeps sessions in SQLite, which is not portable as a file. Capture runs `opencode export <id>` in
 * the sandbox and keeps its JSON on the host (`<directory>/<id>/export.json` + `origin.json`); restore
 * rewrites the recorded workspace and home paths in that JSON and runs `opencode import` with the target
 * home and workspace.
 */
export function opencodeConversationStore(options: OpencodeConversationStoreOptions = {}): PortableConversationStore {
  const store = createStore(options);
  if (options.executable === undefined) storesWithoutExecutable.set(store, options);
  return store;
}

/** Stores created without an executable, with their options: the agent they are given to supplies its own. */
const storesWithoutExecutable = new WeakMap<ConversationStore, OpencodeConversationStoreOptions>();

/**
 * `store` running `executable` when it is an opencode store that names no executable (so an explicitly passed
 * `opencodeConversationStore()` exports and imports with the agent's CLI); any other store unchanged.
 */
export function withAgentExecutable(store: ConversationStore, executable: string): ConversationStore {
  const options = storesWithoutExecutable.get(store);
  return options === undefined ? store : createStore({ ...options, executable });
}

function createStore(options: OpencodeConversationStoreOptions): PortableConversationStore {
  const executable = options.executable ?? "opencode";
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  const deadlineMs = options.deadlineMs ?? 120_000;
  const format = "opencode";
  const directory = (repository: string, home?: string) =>
    conversationDirectory(format, repository, home ?? (options.defaultHome === "repository" ? undefined : homedir()));

  async function locate(id: string, repository: string, home?: string): Promise<ConversationRecord> {
    assertConversationId(id);
    const folder = join(directory(repository, home), id);
    await readOrigin(folder, id);
    const file = join(folder, "export.json");
    parseExport(await readFile(file, "utf8").catch(() => ""), id);
    return { id, file, format };
  }

  /**
   * Runs opencode (or `sh` around it) in the lease's workspace: opencode takes its project from PWD, so an
   * inherited one (a host environment passed whole) would file the session under another project.
   */
  function opencode(context: ConversationContext, command: string, args: string[]): Promise<CommandResult> {
    const lease = context.sandbox;
    return lease.invoke({
      executable: command,
      arguments: args,
      variables: { ...QUIET, HOME: lease.home, PWD: lease.root },
      directory: lease.root,
      retain: maxBytes + 1,
      deadlineMs,
      ...(context.signal ? { signal: context.signal } : {}),
    });
  }

  async function capture(id: string, context: ConversationContext): Promise<ConversationRecord> {
    assertConversationId(id);
    const lease = context.sandbox;
    const result = await opencode(context, executable, ["export", id]);
    if (result.status !== 0) {
      throw new OutpostError(
        "session",
        `opencode export ${id} failed with status ${result.status}: ${result.stderr.trim().slice(-400) || "no output"}. Check the session id and that opencode is installed in the sandbox.`,
        { details: { id, status: result.status } },
      );
    }
    if (Buffer.byteLength(result.stdout) > maxBytes) {
      throw new OutpostError(
        "limit",
        `The opencode export of ${id} is larger than ${maxBytes} bytes. Raise maxBytes if it is legitimate.`,
        { details: { id, maxBytes } },
      );
    }
    const text = result.stdout.slice(result.stdout.indexOf("{"));
    parseExport(text, id);
    const target = directory(context.repository, context.home);
    await writeConversationFolder(target, id, "capture", async (work) => {
      const origin: OpencodeOrigin = {
        outpost: "opencode-export",
        version: 1,
        id,
        workspace: lease.root,
        home: lease.home,
        capturedAt: new Date().toISOString(),
      };
      await writeFile(join(work, "origin.json"), `${JSON.stringify(origin, null, 2)}\n`);
      await writeFile(join(work, "export.json"), text);
    });
    return { id, file: join(target, id, "export.json"), format };
  }

  async function restore(record: ConversationRecord, context: ConversationContext): Promise<void> {
    const id = assertConversationId(record.id);
    const lease = context.sandbox;
    const folder = posix.dirname(record.file);
    const origin = await readOrigin(folder, id);
    const relocation = relocationTo(origin, lease);
    const text = await readFile(record.file, "utf8");
    const captured = parseExport(text, id);
    // A home several workspaces share (your own) may hold the session already: see replacesHomeCopy.
    const held = await homeExport(id, context);
    if (held !== undefined && replacesHomeCopy(parseExport(held, id), captured, origin.capturedAt ?? ""))
      checked(await opencode(context, executable, ["session", "delete", id]), `opencode session delete ${id}`, id);
    await mkdir(context.staging, { recursive: true });
    const stage = await mkdtemp(join(context.staging, `opencode-${id}-`));
    const upload = posix.join(lease.home, ".outpost-staging", `${id}-${randomBytes(6).toString("hex")}`);
    try {
      await writeFile(join(stage, "export.json"), rewriteJsonBlock(text, createPathRewriter(relocationPairs(relocation))));
      await lease.upload(stage, upload, context.signal ? { signal: context.signal } : {});
      checked(await opencode(context, executable, ["import", posix.join(upload, "export.json")]), `opencode import of ${id}`, id);
    } finally {
      await rm(stage, { recursive: true, force: true });
      await removeSandboxPath(lease, upload);
    }
  }

  /** The export of session `id` from the lease home's database, or undefined when it holds none. */
  async function homeExport(id: string, context: ConversationContext): Promise<string | undefined> {
    const lease = context.sandbox;
    const data = context.variables?.["XDG_DATA_HOME"] ?? posix.join(lease.home, ".local", "share");
    const result = await opencode(context, "sh", exportWhenData(posix.join(data, "opencode"), executable, id));
    return result.status === 0 && result.stdout.includes("{") ? result.stdout : undefined;
  }

  return {
    specificationVersion: "v1",
    name: format,
    format,
    directory,
    destination: (_id: string, sandbox: SandboxLease) => posix.join(sandbox.home, ".local", "share", "opencode", "opencode.db"),
    locate,
    capture,
    restore,
    async pack(record: ConversationRecord): Promise<Uint8Array> {
      return packDirectory(posix.dirname(record.file));
    },
    async unpack(id: string, bytes: Uint8Array, repository: string, home?: string): Promise<ConversationRecord> {
      assertConversationId(id);
      await unpackConversationFolder(bytes, directory(repository, home), id, `opencode conversation ${id}`, async (work) => {
        await readOrigin(work, id);
        parseExport(await readFile(join(work, "export.json"), "utf8").catch(() => ""), id);
      });
      return locate(id, repository, home);
    },
  };
}

/** The export must be the session it claims to be: `{ info: { id }, messages: [] }`. */
function parseExport(text: string, id: string): OpencodeExport {
  let value: { info?: { id?: unknown }; messages?: unknown };
  try {
    value = JSON.parse(text.slice(Math.max(0, text.indexOf("{")))) as typeof value;
  } catch (error) {
    throw new OutpostError("session", `The opencode export of ${id} is not valid JSON. Capture the conversation again.`, {
      cause: error,
      details: { id },
    });
  }
  if (value?.info?.id !== id || !Array.isArray(value.messages)) {
    throw new OutpostError("session", `The opencode export does not hold session ${id}. Capture the conversation again.`, {
      details: { id },
    });
  }
  return value as OpencodeExport;
}

/** A failed opencode command is code `session`, with the end of what it said. */
function checked(result: CommandResult, what: string, id: string): void {
  if (result.status !== 0) {
    throw new OutpostError(
      "session",
      `${what} failed with status ${result.status}: ${result.stderr.trim().slice(-400) || "no output"}. Check that opencode is installed in the sandbox.`,
      { details: { id, status: result.status } },
    );
  }
}
