import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import type { ConversationContext, ConversationRecord, SandboxLease, SessionBundleProfile } from "@outpost/core";
import { OutpostError } from "@outpost/core";
import { assertConversationId } from "../conversation-id.js";
import { conversationDirectory } from "../host/conversation-directory.js";
import { readCapturedFile } from "../host/captured-file.js";
import { DEFAULT_BUNDLE_MAX_BYTES, DEFAULT_BUNDLE_MAX_FILES, type CaptureLimits } from "../limits.js";
import { assertRelocatablePath } from "../relocation/relocation.js";
import { runSandboxScript } from "../sandbox/sandbox-script.js";
import { ScriptStandbys } from "../sandbox/script-standbys.js";
import { bundleFiles } from "./bundle-files.js";
import { checkProfile } from "./check-profile.js";
import { hookSource, profileHooksSource } from "./hook-source.js";
import { runHostHook } from "./host-hook.js";
import { readBundle } from "./read-bundle.js";
import { serializePattern } from "./session-bundle.js";
import type { PortableConversationStore } from "../archive/portable-store.js";

export interface SessionBundleStoreOptions extends CaptureLimits {
  /** Store name; defaults to the profile's format. */
  readonly name?: string;
  /**
   * The agent's variables. When they set the profile's `root.variable`, that CLI home is used by capture,
   * restore and `destination()`; a context's own `variables` win over these.
   */
  readonly variables?: Readonly<Record<string, string>>;
}

/**
 * A `NativeConversationStore` for agents that keep a directory per session, built from a
 * `SessionBundleProfile`. Each conversation is one bundle file on the host, `<directory>/<id>.json`.
 */
export function sessionBundleStore(profile: SessionBundleProfile, options: SessionBundleStoreOptions = {}): PortableConversationStore {
  checkProfile(profile);
  const format = profile.format;
  const sources = {
    validate: hookSource("validate", profile.validate, format),
    bucket: hookSource("bucket", profile.bucket, format),
    relocate: hookSource("relocate", profile.relocate, format),
    index: hookSource("index", profile.index, format),
  };
  const hooks = profileHooksSource(format, sources);
  const limits = { maxBytes: options.maxBytes ?? DEFAULT_BUNDLE_MAX_BYTES, maxFiles: options.maxFiles ?? DEFAULT_BUNDLE_MAX_FILES };
  const patterns = {
    include: serializePattern(profile.include),
    ...(profile.exclude ? { exclude: serializePattern(profile.exclude) } : {}),
  };
  const location = (id: string, lease: SandboxLease) => ({
    format,
    id,
    home: lease.home,
    root: profile.root,
    sessions: profile.sessions,
    buckets: profile.buckets === true,
    required: profile.required,
    ...patterns,
    ...limits,
  });
  const directory = (repository: string, home?: string) => conversationDirectory(format, repository, home);
  // The CLI home variable's value as the agent sets it, if it does; otherwise the sandbox's environment decides.
  const cliHomeValue = (context?: ConversationContext): string | undefined => {
    const name = profile.root.variable;
    if (!name) return undefined;
    const value = context?.variables?.[name] ?? options.variables?.[name];
    return value === "" ? undefined : value;
  };
  const placement = (context: ConversationContext) => {
    const value = cliHomeValue(context);
    const environment = value === undefined ? {} : { environment: { [profile.root.variable!]: value } };
    return {
      ...(context.signal ? { signal: context.signal } : {}),
      ...environment,
      ...(context.local ? { local: true, variables: profile.root.variable ? [profile.root.variable] : [] } : {}),
    };
  };
  const expectation = (id: string) => ({ format, id, required: profile.required, ...patterns, ...limits });

  async function locate(id: string, repository: string, home?: string): Promise<ConversationRecord> {
    assertConversationId(id);
    const file = join(directory(repository, home), `${id}.json`);
    const bundle = await readBundle(file, expectation(id));
    if (sources.validate) {
      const texts: Record<string, string> = {};
      for (const entry of bundle.files)
        texts[entry.path] = entry.encoding === "utf8" ? entry.data : Buffer.from(entry.data, "base64").toString("utf8");
      const problem = runHostHook<unknown>("validate", format, sources.validate, [bundleFiles(texts), id]);
      if (typeof problem === "string") {
        throw new OutpostError(
          "session",
          `The captured ${format} session ${id} cannot be restored: ${problem}. It uses something the ${format} profile does not support.`,
          { details: { id, problem } },
        );
      }
    }
    return { id, file, format };
  }

  // The capturing script may start during the turn (`prepareCapture`): the capture after it hands it its input.
  const capturing = new ScriptStandbys<{ file: string; size: number }>("captureBundle");
  const prepareCapture = (context: ConversationContext) =>
    capturing.prepare(context.sandbox, { hooks, ...placement(context), what: `capture a ${format} session` });

  async function capture(id: string, context: ConversationContext): Promise<ConversationRecord> {
    assertConversationId(id);
    const lease = context.sandbox;
    const signal = context.signal;
    const captured = await capturing.run(
      lease,
      { ...location(id, lease), workspace: lease.root },
      { hooks, ...placement(context), what: `capture ${format} session ${id}` },
    );
    const target = directory(context.repository, context.home);
    await mkdir(target, { recursive: true });
    const temporary = join(target, `.${id}.json.capture-${randomBytes(4).toString("hex")}`);
    try {
      await lease.download(captured.file, temporary, signal ? { signal } : {});
      await readBundle(temporary, expectation(id));
      const file = join(target, `${id}.json`);
      await rename(temporary, file);
      return { id, file, format };
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    } finally {
      await runSandboxScript(
        lease,
        "removeCapturedBundle",
        { file: captured.file },
        { what: "remove the temporary bundle", ...placement(context) },
      ).catch(() => undefined);
    }
  }

  async function restore(record: ConversationRecord, context: ConversationContext): Promise<void> {
    const id = assertConversationId(record.id);
    const lease = context.sandbox;
    const signal = context.signal;
    const to = {
      workspace: assertRelocatablePath(lease.root, "sandbox workspace"),
      home: assertRelocatablePath(lease.home, "sandbox home"),
    };
    const bundle = await readBundle(record.file, expectation(id));
    assertRelocatablePath(bundle.origin.workspace, "recorded workspace");
    assertRelocatablePath(bundle.origin.home, "recorded home");
    await mkdir(context.staging, { recursive: true });
    const stage = await mkdtemp(join(context.staging, `bundle-${id}-`));
    const upload = posix.join(lease.home, ".outpost-staging", `${id}-${randomBytes(6).toString("hex")}`);
    try {
      // The bundle as checked, not the file again: it could have been swapped since.
      await writeFile(join(stage, "bundle.json"), JSON.stringify(bundle), { flag: "wx" });
      await lease.upload(stage, upload, signal ? { signal } : {});
      const restored = await runSandboxScript<{ destination: string; kept?: true }>(
        lease,
        "restoreBundle",
        {
          ...location(id, lease),
          upload,
          relocated: profile.relocated ?? [],
          to,
          keepPresent: context.local === true,
          ...(profile.indexFile ? { indexFile: profile.indexFile } : {}),
        },
        { hooks, what: `restore ${format} session ${id}`, ...placement(context) },
      );
      if (restored.kept)
        context.warn?.(
          `The ${format} session ${id} is already in the sandbox home (${restored.destination}); the agent continues from it and the captured copy was not restored over it.`,
        );
    } finally {
      await rm(stage, { recursive: true, force: true });
    }
  }

  return {
    specificationVersion: "v1",
    name: options.name ?? format,
    format,
    directory,
    destination(id: string, sandbox: SandboxLease): string {
      assertConversationId(id);
      const value = cliHomeValue();
      const cliHome = value === undefined ? posix.join(sandbox.home, profile.root.directory) : posix.resolve(sandbox.home, value);
      const sessions = posix.join(cliHome, profile.sessions);
      if (!profile.buckets) return posix.join(sessions, id);
      const bucket = runHostHook<string>("bucket", format, sources.bucket!, [sandbox.root, hostHelpers]);
      return posix.join(sessions, bucket, id);
    },
    locate,
    capture,
    prepareCapture,
    restore,
    async pack(record: ConversationRecord): Promise<Uint8Array> {
      const bytes = await readCapturedFile(record.file, `the bundle of ${format} conversation ${record.id}`);
      if (bytes === undefined)
        throw new OutpostError("session", `No captured ${format} conversation ${record.id} at ${record.file}. Capture it first.`, {
          details: { id: record.id },
        });
      return bytes;
    },
    async unpack(id: string, bytes: Uint8Array, repository: string, home?: string): Promise<ConversationRecord> {
      assertConversationId(id);
      const target = directory(repository, home);
      await mkdir(target, { recursive: true });
      const temporary = join(target, `.${id}.json.unpack-${randomBytes(4).toString("hex")}`);
      try {
        await writeFile(temporary, bytes, { flag: "wx", mode: 0o600 });
        await readBundle(temporary, expectation(id));
        await rename(temporary, join(target, `${id}.json`));
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      return locate(id, repository, home);
    },
  };
}

const hostHelpers = {
  join: (...segments: string[]) => posix.join(...segments),
  sha256: (text: string) => createHash("sha256").update(text, "utf8").digest("hex"),
  md5: (text: string) => createHash("md5").update(text, "utf8").digest("hex"),
  normalize: (value: string) => {
    const normalized = posix.normalize(value);
    return normalized.length > 1 ? normalized.replace(/\/+$/, "") : normalized;
  },
  basename: (value: string) => posix.basename(value.length > 1 ? value.replace(/\/+$/, "") : value),
};
