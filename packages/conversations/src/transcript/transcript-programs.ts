import type { WalkedFile } from "../sandbox/sandbox-library.js";
import type { SerializedPattern } from "../bundle/session-bundle.js";
import { lib } from "../sandbox/sandbox-lib.js";

// These programs run inside the sandbox (dist/sandbox-programs.cjs), never in the host's bundle.

export interface CliLocation {
  readonly home: string;
  readonly root: { readonly variable?: string; readonly directory: string; readonly underVariable?: string };
  readonly sessions: string;
}

export interface LocateTranscriptInput extends CliLocation {
  readonly id: string;
  /** Source of a RegExp tested on paths relative to the sessions directory. */
  readonly pattern: string;
  /** JSON field of the first line that must equal the id (when file names carry only part of it). */
  readonly firstLineField?: string;
  /** Several matches: refuse them, or (default) take the workspace's, else the one modified last (a strict winner). */
  readonly severalMatches?: "refuse" | "newest";
  /**
   * Sessions-relative path of the transcript the CLI writes for this id in the current workspace: with one
   * home shared by several workspaces, each keeps a copy, and the workspace's is the one the turn continued.
   */
  readonly preferred?: string;
  /**
   * Marks the current workspace's copies by their first line (Gemini CLI: `projectHash` is the sha256 of the
   * project root), for CLIs whose file names do not say which workspace wrote them: of several, the newest.
   */
  readonly workspaceFirstLine?: { readonly field: string; readonly value: string };
  readonly sidecar: boolean;
  /** Sidecar-relative paths never captured (credential files), as sessionPathPattern applies them. */
  readonly sidecarExclude?: SerializedPattern;
  readonly maxBytes: number;
  readonly maxFiles: number;
  /** A transcript up to this size with no sidecar comes back in the result itself: no download, no recheck. */
  readonly inlineBytes?: number;
}

export interface LocatedTranscript {
  readonly sessionsDirectory: string;
  readonly relative: string;
  readonly transcript: WalkedFile;
  /** The transcript's bytes (base64), read as a stable file (unchanged while read, one link) in the same process. */
  readonly inline?: string;
  /** Sessions-relative folder `<dirname>/<id>` when it exists, with its files. */
  readonly sidecar?: {
    readonly relative: string;
    readonly files: WalkedFile[];
    /** Absolute sandbox folder holding only the accepted files, when some were excluded; removed after. */
    readonly copy?: string;
  };
}

/** Finds the one transcript of a conversation under the sessions directory and describes it. */
export function locateTranscriptProgram(input: LocateTranscriptInput): LocatedTranscript {
  const { fs, path, fail } = lib;
  const cliRoot = lib.cliRoot(input.home, input.root);
  const base = lib.trustedBase(input.home, cliRoot);
  const sessionsDirectory = path.join(cliRoot, input.sessions);
  const what = `conversation ${input.id}`;
  lib.assertNoLinkBelow(base, sessionsDirectory, `capture ${what}`);
  if (!lib.lstat(sessionsDirectory)?.isDirectory()) {
    throw fail(
      "session",
      `No ${what}: ${sessionsDirectory} does not exist in the sandbox. Check the agent ran there and wrote its session.`,
      { id: input.id },
    );
  }
  const pattern = new RegExp(input.pattern);
  const found: string[] = [];
  // Entries not searched, named when nothing is found: the transcript may be behind one of them.
  const unsearched: string[] = [];
  const visit = (absolute: string, relative: string, depth: number) => {
    for (const entry of fs.readdirSync(absolute, { withFileTypes: true, encoding: "buffer" })) {
      const name = lib.utf8Name(entry.name);
      if (name === undefined) {
        unsearched.push(
          `${relative === "" ? "" : `${relative}/`}${JSON.stringify(entry.name.toString("latin1"))} (a name that is not valid UTF-8)`,
        );
        continue;
      }
      const child = relative === "" ? name : `${relative}/${name}`;
      if (pattern.test(child)) found.push(child);
      else if (entry.isSymbolicLink()) unsearched.push(`${child} (a symbolic link, which Outpost never follows)`);
      else if (entry.isDirectory() && depth < 6) visit(path.join(absolute, name), child, depth + 1);
    }
  };
  visit(sessionsDirectory, "", 0);
  // A link, folder or special file where the transcript should be is refused as such, before any is opened.
  for (const relative of found) {
    const stat = fs.lstatSync(path.join(sessionsDirectory, relative));
    const problem = stat.isSymbolicLink()
      ? "is a symbolic link"
      : stat.isDirectory()
        ? "is a folder where the transcript file should be"
        : !stat.isFile()
          ? "is not a regular file"
          : stat.nlink > 1
            ? `has ${stat.nlink} hard links, so its bytes belong to a file outside the session too`
            : undefined;
    if (problem)
      throw fail("workspace", `Refused to capture ${what}: ${relative} ${problem}. Replace it by the real file.`, { path: relative });
  }
  const matching = input.firstLineField
    ? found.filter((relative) => firstLineField(path.join(sessionsDirectory, relative), input.firstLineField!) === input.id)
    : found;
  if (matching.length === 0) {
    const hint =
      unsearched.length > 0
        ? ` Not searched: ${unsearched.slice(0, 5).join(", ")}; replace links by real folders.`
        : " Check the id and that the agent saved its session.";
    throw fail(unsearched.length > 0 ? "workspace" : "session", `No ${what} under ${sessionsDirectory}.${hint}`, {
      id: input.id,
      ...(unsearched.length > 0 ? { unsearched } : { absent: true }),
    });
  }
  const relative = matching.length === 1 ? matching[0]! : chooseAmong(matching);
  const absolute = path.join(sessionsDirectory, relative);
  const stat = fs.lstatSync(absolute);
  if (relative.split("/").includes(".git")) {
    throw fail("workspace", `Refused to capture ${what}: ${relative} is inside a .git folder.`, { path: relative });
  }
  if (stat.size > input.maxBytes) {
    throw fail(
      "limit",
      `Refused to capture ${what}: ${relative} is ${stat.size} bytes, over the ${input.maxBytes} byte limit. Raise maxBytes if it is legitimate.`,
      { size: stat.size, maxBytes: input.maxBytes },
    );
  }
  const transcript = { path: relative, size: stat.size, mode: stat.mode & 0o777, mtimeMs: stat.mtimeMs, ino: stat.ino };
  const alone = () =>
    stat.size <= (input.inlineBytes ?? -1)
      ? { sessionsDirectory, relative, transcript, inline: lib.readStable(absolute, transcript, what).toString("base64") }
      : { sessionsDirectory, relative, transcript };
  if (!input.sidecar) return alone();
  const sidecarRelative = path.posix.join(path.posix.dirname(relative), input.id);
  const sidecarAbsolute = path.join(sessionsDirectory, sidecarRelative);
  const sidecarStat = lib.lstat(sidecarAbsolute);
  if (!sidecarStat) return alone();
  if (sidecarStat.isSymbolicLink() || !sidecarStat.isDirectory()) {
    throw fail(
      "workspace",
      `Refused to capture ${what}: ${sidecarRelative} is ${sidecarStat.isSymbolicLink() ? "a symbolic link" : "a file"} where its sidecar folder should be. Replace it by a real folder.`,
      { path: sidecarRelative },
    );
  }
  const exclude = input.sidecarExclude ? new RegExp(input.sidecarExclude.source, input.sidecarExclude.flags) : undefined;
  let skipped = 0;
  const files = lib.walk(sidecarAbsolute, {
    ...(exclude ? { accept: (file: string) => !exclude.test(file) || (skipped++, false) } : {}),
    maxFiles: input.maxFiles,
    maxBytes: input.maxBytes - stat.size,
    what,
  });
  if (skipped === 0) return { sessionsDirectory, relative, transcript, sidecar: { relative: sidecarRelative, files } };
  // Excluded files must not travel: the host downloads a copy holding only the accepted ones.
  // Under the lease home: a transfer may only name paths under the lease root or home.
  const staging = path.join(input.home, ".outpost-staging");
  // A link planted at the staging folder must not carry the copy out of the home.
  lib.makeFolders(input.home, staging, `capture ${what}`);
  const copy = fs.mkdtempSync(path.join(staging, "outpost-sidecar-"));
  for (const file of files) {
    const target = path.join(copy, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    fs.writeFileSync(target, lib.readStable(path.join(sidecarAbsolute, file.path), file, what), { mode: file.mode, flag: "wx" });
  }
  return { sessionsDirectory, relative, transcript, sidecar: { relative: sidecarRelative, files, copy } };

  /** Of several copies: the current workspace's, else the one written strictly last. */
  function chooseAmong(paths: readonly string[]): string {
    if (input.severalMatches !== "refuse") {
      if (input.preferred !== undefined && paths.includes(input.preferred)) return input.preferred;
      const marked = input.workspaceFirstLine;
      const own = marked
        ? paths.filter((relative) => firstLineField(path.join(sessionsDirectory, relative), marked.field) === marked.value)
        : [];
      // Another workspace's copy may be newer (continued there, or touched since): the turn continued this one's.
      if (own.length === 1) return own[0]!;
      const newest = lastWritten(own.length > 1 ? own : paths);
      if (newest !== undefined) return newest;
      throw fail(
        "session",
        `Several transcripts of ${what} were last written at the same moment (${paths.join(", ")}): which one the CLI continued cannot be told. ` +
          "Run the turn again; its capture takes the transcript that turn writes.",
        { id: input.id, matches: paths },
      );
    }
    throw fail("session", `Several transcripts match ${what}: ${paths.join(", ")}. Remove the stale copies.`, {
      id: input.id,
      matches: paths,
    });
  }

  /** The path modified strictly last, or undefined on a tie (then nothing tells which one is current). */
  function lastWritten(paths: readonly string[]): string | undefined {
    const times = paths.map((relative) => ({ relative, mtime: fs.lstatSync(path.join(sessionsDirectory, relative)).mtimeMs }));
    times.sort((left, right) => right.mtime - left.mtime);
    return times[0]!.mtime > times[1]!.mtime ? times[0]!.relative : undefined;
  }

  function firstLineField(file: string, field: string): unknown {
    const handle = fs.openSync(file, "r");
    try {
      const buffer = Buffer.alloc(65536);
      const read = fs.readSync(handle, buffer, 0, buffer.length, 0);
      const line = buffer.subarray(0, read).toString("utf8").split("\n")[0] ?? "";
      return (JSON.parse(line) as Record<string, unknown>)[field];
    } catch {
      return undefined;
    } finally {
      fs.closeSync(handle);
    }
  }
}

export interface RecheckTranscriptInput {
  readonly directory: string;
  readonly files: readonly WalkedFile[];
  readonly what: string;
}

/** Proves the located files are unchanged after they were downloaded. */
export function recheckTranscriptProgram(input: RecheckTranscriptInput): true {
  for (const file of input.files) {
    const stat = lib.lstat(lib.path.join(input.directory, file.path));
    if (!stat || !lib.sameFile(stat, file) || stat.nlink > 1) throw lib.changed(file.path, input.what);
  }
  return true;
}

export interface PrepareRestoreInput extends CliLocation {
  readonly id: string;
  /** CLI-root-relative files whose text the store needs to plan the restore. */
  readonly probes: readonly string[];
}

export interface PreparedRestore {
  readonly cliRoot: string;
  readonly sessionsDirectory: string;
  readonly probes: Record<string, string | null>;
  /** Below it, nothing in the CLI home is trusted (see `trustedBase`). */
  readonly base: string;
  /** An empty folder beside the sessions, for staging uploads. */
  readonly staging: string;
}

/** Resolves where the CLI keeps its sessions and makes a staging folder beside them. */
export function prepareRestoreProgram(input: PrepareRestoreInput): PreparedRestore {
  const { fs, path } = lib;
  const cliRoot = lib.cliRoot(input.home, input.root);
  const base = lib.trustedBase(input.home, cliRoot);
  const sessionsDirectory = path.join(cliRoot, input.sessions);
  const probes: Record<string, string | null> = {};
  for (const probe of input.probes) {
    const file = path.join(cliRoot, probe);
    const missing = lib.assertNoLinkBelow(base, file, "read the CLI's index files");
    const stat = missing ? undefined : lib.lstat(file);
    probes[probe] = stat?.isFile() && stat.nlink === 1 ? fs.readFileSync(file, "utf8") : null;
  }
  lib.makeFolders(base, sessionsDirectory, "restore a conversation");
  // A restore that a crash interrupted is finished or undone first, whatever happens to this one.
  lib.recoverReplacement(path.join(sessionsDirectory, `.${input.id}.outpost-replace.json`), base);
  const staging = fs.mkdtempSync(path.join(sessionsDirectory, ".outpost-restore-"));
  return { cliRoot, base, sessionsDirectory, probes, staging };
}

export interface CommitTranscriptInput {
  readonly id: string;
  readonly staging: string;
  readonly base: string;
  readonly sessionsDirectory: string;
  readonly cliRoot: string;
  /** Staged file name → sessions-relative destination. */
  readonly moves: readonly { readonly staged: string; readonly destination: string }[];
  /** CLI-root-relative files written as text after the transcript is in place. */
  readonly writes: readonly { readonly path: string; readonly text: string }[];
}

/**
 * Puts the staged transcript, its sidecar and the index files in place all together (see
 * `replaceTogether`): after a crash at any point, the next restore finds the old or the new conversation.
 */
export function commitTranscriptProgram(input: CommitTranscriptInput): true {
  const { fs, path, fail } = lib;
  const what = `restore conversation ${input.id}`;
  const replacements: { staged: string; target: string }[] = [];
  try {
    for (const move of input.moves) {
      const target = path.resolve(input.sessionsDirectory, move.destination);
      if (!target.startsWith(`${input.sessionsDirectory}/`))
        throw fail("workspace", `Refused destination ${move.destination}: it leaves the sessions folder.`);
      lib.makeFolders(input.base, path.dirname(target), what);
      const sibling = lib.stagingName(target);
      fs.renameSync(path.join(input.staging, move.staged), sibling);
      replacements.push({ staged: sibling, target });
    }
    for (const write of input.writes) {
      const target = path.resolve(input.cliRoot, write.path);
      if (!target.startsWith(`${input.cliRoot}/`)) throw fail("workspace", `Refused index file ${write.path}: it leaves the CLI home.`);
      lib.makeFolders(input.base, path.dirname(target), what);
      const sibling = lib.stagingName(target);
      fs.writeFileSync(sibling, write.text, { flag: "wx", mode: 0o600 });
      replacements.push({ staged: sibling, target });
    }
    lib.replaceTogether(path.join(input.sessionsDirectory, `.${input.id}.outpost-replace.json`), input.base, replacements);
  } catch (error) {
    for (const replacement of replacements) fs.rmSync(replacement.staged, { recursive: true, force: true });
    throw error;
  } finally {
    fs.rmSync(input.staging, { recursive: true, force: true });
  }
  return true;
}

/** Removes a staging folder or temporary file left by an aborted operation. */
export function removeProgram(input: { readonly path: string }): true {
  lib.fs.rmSync(input.path, { recursive: true, force: true });
  return true;
}

/** Removes the sidecar copy, and the staging folder under home once nothing else uses it. */
export function removeCopyProgram(input: { readonly path: string }): true {
  lib.fs.rmSync(input.path, { recursive: true, force: true });
  try {
    lib.fs.rmdirSync(lib.path.dirname(input.path));
  } catch {
    // Another capture or restore is using the staging folder.
  }
  return true;
}
