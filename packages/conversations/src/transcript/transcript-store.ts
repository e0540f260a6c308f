import { chmod, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, posix } from "node:path";
import type { ConversationContext, ConversationRecord, SandboxLease } from "@outpost/core";
import { OutpostError } from "@outpost/core";
import { serializePattern } from "../bundle/session-bundle.js";
import { assertConversationId } from "../conversation-id.js";
import { conversationDirectory } from "../host/conversation-directory.js";
import { recoverDirectory } from "../host/replace-directory.js";
import { assertCapturedFile } from "../host/captured-file.js";
import { unpackConversationFolder, writeConversationFolder } from "../host/conversation-folder.js";
import { packDirectory } from "../archive/file-pack.js";
import type { PortableConversationStore } from "../archive/portable-store.js";
import { DEFAULT_MAX_FILES, DEFAULT_TRANSCRIPT_MAX_BYTES, type CaptureLimits } from "../limits.js";
import type { PathPair } from "../relocation/path-rewriter.js";
import { relocateCopy } from "../relocation/relocate-copy.js";
import { relocationPairs, relocationTo } from "../relocation/relocation.js";
import { runSandboxScript } from "../sandbox/sandbox-script.js";
import { ScriptStandbys } from "../sandbox/script-standbys.js";
import type { WalkedFile } from "../sandbox/sandbox-library.js";
import type { TranscriptFormat } from "./transcript-format.js";
import { readTranscriptOrigin } from "./transcript-origin.js";
import type { LocatedTranscript, PreparedRestore } from "./transcript-programs.js";

/**
 * A transcript up to this size (and without a sidecar folder) comes back with the script that locates it:
 * one sandbox command instead of three (locate, download, recheck). Its base64 fits the script's retained output.
 */
const INLINE_TRANSCRIPT_BYTES = 1024 * 1024;

export interface TranscriptStoreOptions extends CaptureLimits {
  /**
   * Where conversations go when the dispatch gives no `conversationHome`: `"user"` is your home directory
   * (a CLI's transcripts belong to you, across checkouts), `"repository"` the checkout root. Default repository.
   */
  readonly defaultHome?: "user" | "repository";
}

/**
 * A `NativeConversationStore` for agents that keep one transcript file per conversation. On the host a
 * conversation lives in `<directory>/<id>/`: `origin.json` plus `files/<sessions-relative path>`.
 */
export function transcriptStore(format: TranscriptFormat, options: TranscriptStoreOptions = {}): PortableConversationStore {
  const maxBytes = options.maxBytes ?? DEFAULT_TRANSCRIPT_MAX_BYTES;
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
  const location = (lease: SandboxLease) => ({ home: lease.home, root: format.root, sessions: format.sessions });
  const run = (context: ConversationContext, what: string) => ({
    what,
    ...(context.signal ? { signal: context.signal } : {}),
    // A CLI home the agent's variables set (CLAUDE_CONFIG_DIR, CODEX_HOME) is where its transcripts are.
    ...(format.root.variable && context.variables?.[format.root.variable]
      ? { environment: { [format.root.variable]: context.variables[format.root.variable]! } }
      : {}),
    ...(context.local ? { local: true, variables: format.root.variable ? [format.root.variable] : [] } : {}),
  });

  const directory = (repository: string, home?: string) =>
    conversationDirectory(format.format, repository, home ?? (options.defaultHome === "user" ? homedir() : undefined));

  async function locate(id: string, repository: string, home?: string): Promise<ConversationRecord> {
    assertConversationId(id);
    const folder = join(directory(repository, home), id);
    await recoverDirectory(folder);
    const origin = await readTranscriptOrigin(folder, format.format, id);
    const file = join(folder, "files", origin.transcript);
    await assertCapturedFile(file, `the transcript of conversation ${id}`);
    const stat = await lstat(file).catch(() => undefined);
    if (!stat?.isFile()) {
      throw new OutpostError("session", `The captured conversation ${id} is incomplete: ${file} is missing. Capture it again.`, {
        details: { id, file },
      });
    }
    return { id, file, format: format.format };
  }

  // The locating script may start during the turn (`prepareCapture`): the capture after it hands it its input.
  const locating = new ScriptStandbys<LocatedTranscript>("locateTranscript");
  const prepareCapture = (context: ConversationContext) => locating.prepare(context.sandbox, run(context, "find the conversation"));

  async function capture(id: string, context: ConversationContext): Promise<ConversationRecord> {
    assertConversationId(id);
    const lease = context.sandbox;
    const signal = context.signal;
    const what = `conversation ${id}`;
    const located = await locating.run(
      lease,
      {
        ...location(lease),
        id,
        pattern: format.transcriptPattern(id),
        ...(format.firstLineField ? { firstLineField: format.firstLineField } : {}),
        ...(format.severalMatches ? { severalMatches: format.severalMatches } : {}),
        ...(format.workspaceTranscript ? { preferred: format.workspaceTranscript(id, lease.root) } : {}),
        ...(format.workspaceFirstLine ? { workspaceFirstLine: format.workspaceFirstLine(lease.root) } : {}),
        sidecar: format.sidecar === true,
        ...(format.sidecarExclude ? { sidecarExclude: serializePattern(format.sidecarExclude) } : {}),
        maxBytes,
        maxFiles,
        inlineBytes: INLINE_TRANSCRIPT_BYTES,
      },
      run(context, `find ${what}`),
    );
    const target = directory(context.repository, context.home);
    try {
      await writeConversationFolder(target, id, "capture", async (work) => {
        const files = join(work, "files");
        const transcript = join(files, located.relative);
        await mkdir(dirname(transcript), { recursive: true });
        if (located.inline === undefined)
          await lease.download(posix.join(located.sessionsDirectory, located.relative), transcript, signal ? { signal } : {});
        else
          await writeFile(transcript, Buffer.from(located.inline, "base64"), {
            mode: (located.transcript.mode & 0o777) | 0o600,
            flag: "wx",
          });
        const expected: WalkedFile[] = [located.transcript];
        if (located.sidecar) {
          const from = located.sidecar.copy ?? posix.join(located.sessionsDirectory, located.sidecar.relative);
          await lease.download(from, join(files, located.sidecar.relative), signal ? { signal } : {});
          for (const file of located.sidecar.files) expected.push({ ...file, path: posix.join(located.sidecar.relative, file.path) });
        }
        await verifyHostCopy(files, expected, what);
        // Bytes read in the locating process were already proven stable there; downloaded ones are checked again.
        if (located.inline === undefined)
          await runSandboxScript(
            lease,
            "recheckTranscript",
            { directory: located.sessionsDirectory, files: expected, what },
            run(context, `recheck ${what}`),
          );
        const origin = {
          outpost: "transcript",
          version: 1,
          format: format.format,
          id,
          transcript: located.relative,
          mode: located.transcript.mode,
          ...(located.sidecar ? { sidecar: located.sidecar.relative } : {}),
          workspace: lease.root,
          home: lease.home,
          capturedAt: new Date().toISOString(),
        };
        await writeFile(join(work, "origin.json"), `${JSON.stringify(origin, null, 2)}\n`);
      });
    } finally {
      const copy = located.sidecar?.copy;
      if (copy) await runSandboxScript(lease, "removeCopy", { path: copy }, run(context, "remove the sidecar copy")).catch(() => undefined);
    }
    return { id, file: join(target, id, "files", located.relative), format: format.format };
  }

  async function restore(record: ConversationRecord, context: ConversationContext): Promise<void> {
    const id = assertConversationId(record.id);
    const lease = context.sandbox;
    const signal = context.signal;
    const folder = originFolder(record.file, id);
    const origin = await readTranscriptOrigin(folder, format.format, id);
    const relocation = relocationTo(origin, lease);
    const to = relocation.to;
    const prepared = await runSandboxScript<PreparedRestore>(
      lease,
      "prepareRestore",
      { ...location(lease), id, probes: format.probes ?? [] },
      run(context, `prepare the restore of conversation ${id}`),
    );
    // On the host the sandbox's staging folder is reachable: write the relocated files straight into it.
    const local = context.local === true;
    if (!local) await mkdir(context.staging, { recursive: true });
    const stage = local ? prepared.staging : await mkdtemp(join(context.staging, `restore-${id}-`));
    try {
      const base = { id, original: origin.transcript, workspace: to.workspace, probes: prepared.probes };
      const destination = format.destination(base);
      // A live home (host placement) already holding the conversation is where the CLI continues from, when
      // that copy is current: the last capture came from it, or it changed since (continued outside Outpost).
      // A copy the conversation has moved on from (it went to another workspace and came back) is replaced.
      const present = join(prepared.sessionsDirectory, destination);
      const found = local ? await lstat(present).catch(() => undefined) : undefined;
      const current =
        found !== undefined &&
        ((origin.workspace === to.workspace && origin.home === to.home) || found.mtimeMs > Date.parse(origin.capturedAt));
      if (current) {
        context.warn?.(
          `Conversation ${id} is already in the sandbox home (${present}); the agent continues from it and the captured copy was not restored over it.`,
        );
        await runSandboxScript(lease, "remove", { path: prepared.staging }, run(context, "remove the restore staging folder")).catch(
          () => undefined,
        );
        return;
      }
      const plan = format.plan?.({ ...base, origin, home: to.home, destination }) ?? {};
      const pairs = [...relocationPairs(relocation), ...(plan.pairs ?? [])];
      const files = join(folder, "files");
      // What the next sandbox is given: only what the host user wrote (capture), never another writer's file.
      await assertCapturedFile(join(files, origin.transcript), `the transcript of conversation ${id}`);
      await relocateCopy(join(files, origin.transcript), join(stage, "transcript"), pairs, signal);
      await chmod(join(stage, "transcript"), origin.mode & 0o777);
      const moves = [{ staged: "transcript", destination }];
      if (origin.sidecar) {
        await relocateTree(join(files, origin.sidecar), join(stage, "sidecar"), pairs, signal);
        moves.push({ staged: "sidecar", destination: posix.join(posix.dirname(destination), id) });
      }
      if (!local) await lease.upload(stage, prepared.staging, signal ? { signal } : {});
      await runSandboxScript(
        lease,
        "commitTranscript",
        {
          id,
          base: prepared.base,
          staging: prepared.staging,
          sessionsDirectory: prepared.sessionsDirectory,
          cliRoot: prepared.cliRoot,
          moves,
          writes: plan.writes ?? [],
        },
        run(context, `put conversation ${id} in place`),
      );
    } catch (error) {
      await runSandboxScript(lease, "remove", { path: prepared.staging }, run(context, "remove the restore staging folder")).catch(
        () => undefined,
      );
      throw error;
    } finally {
      if (!local) await rm(stage, { recursive: true, force: true });
    }
  }

  return {
    specificationVersion: "v1",
    name: format.name ?? format.format,
    format: format.format,
    directory,
    destination(id: string, sandbox: SandboxLease, original: string): string {
      const relative = relativeOfCaptured(original, id);
      const sessions = posix.join(sandbox.home, format.root.directory, format.sessions);
      return posix.join(sessions, format.destination({ id, original: relative, workspace: sandbox.root, probes: {} }));
    },
    locate,
    capture,
    prepareCapture,
    restore,
    async pack(record: ConversationRecord): Promise<Uint8Array> {
      return packDirectory(originFolder(record.file, assertConversationId(record.id)));
    },
    async unpack(id: string, bytes: Uint8Array, repository: string, home?: string): Promise<ConversationRecord> {
      assertConversationId(id);
      await unpackConversationFolder(bytes, directory(repository, home), id, `${format.format} conversation ${id}`, async (work) => {
        await readTranscriptOrigin(work, format.format, id);
      });
      return locate(id, repository, home);
    },
  };
}

/** `<directory>/<id>/files/<relative>` → `<relative>`. */
function relativeOfCaptured(file: string, id: string): string {
  const marker = `/${id}/files/`;
  const at = file.replaceAll("\\", "/").lastIndexOf(marker);
  if (at === -1)
    throw new OutpostError(
      "session",
      `${file} is not a captured transcript of conversation ${id}. Pass the file of a record returned by locate or capture.`,
      { details: { id, file } },
    );
  return file.slice(at + marker.length);
}

function originFolder(file: string, id: string): string {
  const relative = relativeOfCaptured(file, id);
  return file.slice(0, file.length - relative.length - "/files/".length);
}

/** The downloaded copy holds exactly the located regular files, with their sizes. */
async function verifyHostCopy(root: string, expected: readonly WalkedFile[], what: string): Promise<void> {
  const sizes = new Map(expected.map((file) => [file.path, file.size]));
  const found: string[] = [];
  const visit = async (absolute: string, relative: string): Promise<void> => {
    for (const entry of await readdir(absolute, { withFileTypes: true })) {
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await visit(join(absolute, entry.name), child);
      else if (!entry.isFile())
        throw new OutpostError(
          "workspace",
          `Refused to capture ${what}: ${child} arrived as a link or special file. Replace it by a regular file.`,
          { details: { path: child } },
        );
      else {
        const stat = await lstat(join(absolute, entry.name));
        if (sizes.get(child) !== stat.size)
          throw new OutpostError(
            "session",
            `Refused to capture ${what}: ${child} changed while it was being copied. Capture after the agent has exited.`,
            { details: { path: child } },
          );
        found.push(child);
      }
    }
  };
  await visit(root, "");
  if (found.length !== expected.length) {
    throw new OutpostError(
      "session",
      `Refused to capture ${what}: its files changed while they were being copied. Capture after the agent has exited.`,
    );
  }
}

async function relocateTree(source: string, target: string, pairs: readonly PathPair[], signal?: AbortSignal): Promise<void> {
  await mkdir(target, { recursive: true });
  for (const entry of await readdir(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) await relocateTree(from, to, pairs, signal);
    else if (entry.isFile()) {
      await assertCapturedFile(from, "a file of a captured conversation's sidecar");
      await relocateCopy(from, to, pairs, signal);
      await chmod(to, (await lstat(from)).mode & 0o777);
    }
  }
}
