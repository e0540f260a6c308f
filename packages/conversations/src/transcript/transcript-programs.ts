import type { SandboxLibrary, WalkedFile } from "../sandbox/sandbox-library.js";

// Provided by the script prelude (see runSandboxScript); these functions run inside the sandbox.
declare const lib: SandboxLibrary;

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
  readonly sidecar: boolean;
  readonly maxBytes: number;
  readonly maxFiles: number;
}

export interface LocatedTranscript {
  readonly sessionsDirectory: string;
  readonly relative: string;
  readonly transcript: WalkedFile;
  /** Sessions-relative folder `<dirname>/<id>` when it exists, with its files. */
  readonly sidecar?: { readonly relative: string; readonly files: WalkedFile[] };
}

/** Finds the one transcript of a conversation under the sessions directory and describes it. */
export function locateTranscriptProgram(input: LocateTranscriptInput): LocatedTranscript {
  const { fs, path, fail } = lib;
  const sessionsDirectory = path.join(lib.cliRoot(input.home, input.root), input.sessions);
  const what = `conversation ${input.id}`;
  if (!lib.lstat(sessionsDirectory)?.isDirectory()) {
    throw fail("session", `No ${what}: ${sessionsDirectory} does not exist in the sandbox. Check the agent ran there and wrote its session.`, { id: input.id });
  }
  const pattern = new RegExp(input.pattern);
  const found: string[] = [];
  const visit = (absolute: string, relative: string, depth: number) => {
    for (const entry of fs.readdirSync(absolute, { withFileTypes: true })) {
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory() && depth < 6) visit(path.join(absolute, entry.name), child, depth + 1);
      else if (pattern.test(child)) found.push(child);
    }
  };
  visit(sessionsDirectory, "", 0);
  const matching = input.firstLineField ? found.filter((relative) => firstLineField(path.join(sessionsDirectory, relative), input.firstLineField!) === input.id) : found;
  if (matching.length === 0) {
    throw fail("session", `No ${what} under ${sessionsDirectory}. Check the id and that the agent saved its session.`, { id: input.id });
  }
  if (matching.length > 1) {
    throw fail("session", `Several transcripts match ${what}: ${matching.join(", ")}. Remove the stale copies.`, { id: input.id, matches: matching });
  }
  const relative = matching[0]!;
  const absolute = path.join(sessionsDirectory, relative);
  const stat = fs.lstatSync(absolute);
  if (stat.isSymbolicLink() || !stat.isFile()) {
    throw fail("workspace", `Refused to capture ${what}: ${relative} is a link or not a regular file. Replace it by the real file.`, { path: relative });
  }
  if (relative.split("/").includes(".git")) {
    throw fail("workspace", `Refused to capture ${what}: ${relative} is inside a .git folder.`, { path: relative });
  }
  if (stat.size > input.maxBytes) {
    throw fail("limit", `Refused to capture ${what}: ${relative} is ${stat.size} bytes, over the ${input.maxBytes} byte limit. Raise maxBytes if it is legitimate.`, { size: stat.size, maxBytes: input.maxBytes });
  }
  const transcript = { path: relative, size: stat.size, mode: stat.mode & 0o777, mtimeMs: stat.mtimeMs, ino: stat.ino };
  if (!input.sidecar) return { sessionsDirectory, relative, transcript };
  const sidecarRelative = path.posix.join(path.posix.dirname(relative), input.id);
  const sidecarAbsolute = path.join(sessionsDirectory, sidecarRelative);
  const sidecarStat = lib.lstat(sidecarAbsolute);
  if (!sidecarStat) return { sessionsDirectory, relative, transcript };
  if (sidecarStat.isSymbolicLink() || !sidecarStat.isDirectory()) {
    throw fail("workspace", `Refused to capture ${what}: ${sidecarRelative} is a link or not a folder. Replace it by a real folder.`, { path: sidecarRelative });
  }
  const files = lib.walk(sidecarAbsolute, { maxFiles: input.maxFiles, maxBytes: input.maxBytes - stat.size, what });
  return { sessionsDirectory, relative, transcript, sidecar: { relative: sidecarRelative, files } };

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
    if (!stat || !lib.sameFile(stat, file)) throw lib.changed(file.path, input.what);
  }
  return true;
}

export interface PrepareRestoreInput extends CliLocation {
  /** CLI-root-relative files whose text the store needs to plan the restore. */
  readonly probes: readonly string[];
}

export interface PreparedRestore {
  readonly cliRoot: string;
  readonly sessionsDirectory: string;
  readonly probes: Record<string, string | null>;
  /** An empty folder beside the sessions, for staging uploads. */
  readonly staging: string;
}

/** Resolves where the CLI keeps its sessions and makes a staging folder beside them. */
export function prepareRestoreProgram(input: PrepareRestoreInput): PreparedRestore {
  const { fs, path } = lib;
  const cliRoot = lib.cliRoot(input.home, input.root);
  const sessionsDirectory = path.join(cliRoot, input.sessions);
  const probes: Record<string, string | null> = {};
  for (const probe of input.probes) {
    const file = path.join(cliRoot, probe);
    const stat = lib.lstat(file);
    probes[probe] = stat?.isFile() ? fs.readFileSync(file, "utf8") : null;
  }
  fs.mkdirSync(sessionsDirectory, { recursive: true });
  const staging = fs.mkdtempSync(path.join(sessionsDirectory, ".outpost-restore-"));
  return { cliRoot, sessionsDirectory, probes, staging };
}

export interface CommitTranscriptInput {
  readonly staging: string;
  readonly sessionsDirectory: string;
  readonly cliRoot: string;
  /** Staged file name → sessions-relative destination. */
  readonly moves: readonly { readonly staged: string; readonly destination: string }[];
  /** CLI-root-relative files written as text after the transcript is in place. */
  readonly writes: readonly { readonly path: string; readonly text: string }[];
}

/** Swaps staged files into place (each one atomically), then writes the index files. */
export function commitTranscriptProgram(input: CommitTranscriptInput): true {
  const { fs, path, fail } = lib;
  try {
    for (const move of input.moves) {
      const target = path.resolve(input.sessionsDirectory, move.destination);
      if (!target.startsWith(`${input.sessionsDirectory}/`)) throw fail("workspace", `Refused destination ${move.destination}: it leaves the sessions folder.`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      lib.swapIn(path.join(input.staging, move.staged), target);
    }
    for (const write of input.writes) {
      const target = path.resolve(input.cliRoot, write.path);
      if (!target.startsWith(`${input.cliRoot}/`)) throw fail("workspace", `Refused index file ${write.path}: it leaves the CLI home.`);
      lib.writeAtomic(target, write.text);
    }
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
