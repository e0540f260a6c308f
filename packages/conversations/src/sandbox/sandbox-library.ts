import type { PathPair } from "../relocation/path-rewriter.js";

/** A file found by `walk`, relative to the walked directory. */
export interface WalkedFile {
  readonly path: string;
  readonly size: number;
  readonly mode: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

export interface WalkOptions {
  /** Whether a relative path (directory or file) is taken; a refused directory is not entered. */
  readonly accept?: (path: string, directory: boolean) => boolean;
  readonly maxFiles: number;
  readonly maxBytes: number;
  readonly what: string;
}

/**
 * The file-system helpers every sandbox script uses. Self-contained: serialized whole into `node -e`
 * scripts, so it uses only Node built-ins and its argument.
 */
export function sandboxLibrary(createPathRewriter: (pairs: readonly PathPair[]) => (text: string) => string) {
  const fs = require("node:fs") as typeof import("node:fs");
  const path = require("node:path") as typeof import("node:path");
  const crypto = require("node:crypto") as typeof import("node:crypto");

  function fail(code: string, message: string, details?: Record<string, unknown>): Error {
    return Object.assign(new Error(message), { outpostCode: code, details });
  }

  function lstat(file: string) {
    try {
      return fs.lstatSync(file);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return undefined;
      throw error;
    }
  }

  /**
   * CLI home: `$variable` when set (plus `underVariable` for CLIs whose variable replaces the user's home
   * rather than their own folder), otherwise `directory` under the agent home.
   */
  function cliRoot(home: string, root: { variable?: string; directory: string; underVariable?: string }): string {
    const value = root.variable ? process.env[root.variable] : undefined;
    return value ? path.resolve(value, root.underVariable ?? "") : path.resolve(home, root.directory);
  }

  /** Lists regular files under `directory`, refusing links, `.git` and anything past the limits. */
  function walk(directory: string, options: WalkOptions): WalkedFile[] {
    const files: WalkedFile[] = [];
    let bytes = 0;
    const visit = (absolute: string, relative: string) => {
      const entries = fs.readdirSync(absolute, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const entry of entries) {
        const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
        if (entry.name === ".git") {
          throw fail("workspace", `Refused to capture ${options.what}: it contains a .git entry (${child}). Remove it from the session folder.`, { path: child });
        }
        const isDirectory = entry.isDirectory();
        if (options.accept && !options.accept(child, isDirectory)) continue;
        if (entry.isSymbolicLink()) {
          throw fail("workspace", `Refused to capture ${options.what}: ${child} is a symbolic link. Replace the link by the file it points to.`, { path: child });
        }
        if (isDirectory) {
          visit(path.join(absolute, entry.name), child);
          continue;
        }
        if (!entry.isFile()) {
          throw fail("workspace", `Refused to capture ${options.what}: ${child} is not a regular file. Remove it from the session folder.`, { path: child });
        }
        const stat = fs.lstatSync(path.join(absolute, entry.name));
        bytes += stat.size;
        files.push({ path: child, size: stat.size, mode: stat.mode & 0o777, mtimeMs: stat.mtimeMs, ino: stat.ino });
        if (files.length > options.maxFiles) {
          throw fail("limit", `Refused to capture ${options.what}: more than ${options.maxFiles} files. Raise the store's maxFiles limit if this session is legitimate.`, { maxFiles: options.maxFiles });
        }
        if (bytes > options.maxBytes) {
          throw fail("limit", `Refused to capture ${options.what}: more than ${options.maxBytes} bytes. Raise the store's maxBytes limit if this session is legitimate.`, { maxBytes: options.maxBytes });
        }
      }
    };
    visit(directory, "");
    return files;
  }

  /** Reads a file and proves it did not change since it was listed, nor while it was read. */
  function readStable(file: string, listed: WalkedFile, what: string): Buffer {
    const relative = listed.path;
    const before = fs.lstatSync(file);
    const bytes = fs.readFileSync(file);
    const after = fs.lstatSync(file);
    if (!sameFile(listed, before) || !sameFile(before, after) || bytes.length !== after.size) {
      throw changed(relative, what);
    }
    return bytes;
  }

  function changed(relative: string, what: string): Error {
    return fail("session", `Refused to capture ${what}: ${relative} changed while it was being read. Capture after the agent has exited.`, { path: relative });
  }

  function sameFile(a: { size: number; mtimeMs: number; ino: number }, b: { size: number; mtimeMs: number; ino: number }): boolean {
    return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
  }

  /** Writes through a temporary sibling and a rename, so readers never see half a file. */
  function writeAtomic(file: string, data: string | Buffer, mode?: number): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.outpost-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
    fs.writeFileSync(temporary, data, mode === undefined ? {} : { mode });
    fs.renameSync(temporary, file);
  }

  /** Puts `staged` at `target`, keeping the previous `target` until the new one is in place. */
  function swapIn(staged: string, target: string): void {
    const previous = lstat(target);
    if (!previous) {
      fs.renameSync(staged, target);
      return;
    }
    if (previous.isSymbolicLink()) {
      throw fail("workspace", `Refused to replace ${target}: it is a symbolic link. Remove the link first.`, { path: target });
    }
    const aside = `${path.dirname(target)}/.${path.basename(target)}.outpost-old-${crypto.randomBytes(4).toString("hex")}`;
    fs.renameSync(target, aside);
    try {
      fs.renameSync(staged, target);
    } catch (error) {
      fs.renameSync(aside, target);
      throw error;
    }
    fs.rmSync(aside, { recursive: true, force: true });
  }

  function stagingName(target: string): string {
    return `${path.dirname(target)}/.${path.basename(target)}.outpost-new-${crypto.randomBytes(4).toString("hex")}`;
  }

  const helpers = {
    sha256: (text: string) => crypto.createHash("sha256").update(text, "utf8").digest("hex"),
    normalize: (value: string) => {
      const normalized = path.posix.normalize(value);
      return normalized.length > 1 ? normalized.replace(/\/+$/, "") : normalized;
    },
    basename: (value: string) => path.posix.basename(value.length > 1 ? value.replace(/\/+$/, "") : value),
  };

  return { fs, path, crypto, fail, lstat, cliRoot, walk, readStable, changed, sameFile, writeAtomic, swapIn, stagingName, helpers, createPathRewriter };
}

export type SandboxLibrary = ReturnType<typeof sandboxLibrary>;
