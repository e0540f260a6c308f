import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { createPathRewriter } from "../relocation/path-rewriter.js";
import { sandboxReplace } from "./sandbox-replace.js";

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
 * The file-system helpers every sandbox program uses (`sandbox-programs/`). It runs inside the sandbox, in
 * the self-contained `dist/sandbox-programs.cjs` the build writes, so it may import only Node built-ins and
 * this package's own modules.
 */
export function sandboxLibrary() {
  function fail(code: string, message: string, details?: Record<string, unknown>): Error {
    return Object.assign(new Error(message), { outpostCode: code, details });
  }

  function lstat(file: string) {
    try {
      return fs.lstatSync(file);
    } catch (error) {
      // ENOTDIR: a file stands where a folder on the way was expected, so nothing is there either.
      const code = (error as { code?: string }).code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw error;
    }
  }

  /**
   * CLI home: `$variable` when set (plus `underVariable` for CLIs whose variable replaces the user's home
   * rather than their own folder), otherwise `directory` under the agent home.
   */
  function cliRoot(home: string, root: { variable?: string; directory: string; underVariable?: string }): string {
    const value = root.variable ? process.env[root.variable] : undefined;
    // A relative value is taken from the agent home, as destination() on the host does.
    return value ? path.resolve(home, value, root.underVariable ?? "") : path.resolve(home, root.directory);
  }

  /**
   * Lists the accepted regular files under `directory`. Refused anywhere in it, also where `accept` would
   * skip the entry: symbolic links, files with more than one hard link (their bytes belong to a file
   * elsewhere too), `.git`, special files and names that are not valid UTF-8. Past the limits it fails.
   */
  function walk(directory: string, options: WalkOptions): WalkedFile[] {
    const files: WalkedFile[] = [];
    let bytes = 0;
    // Skipped entries are still inspected for links; this bounds that inspection.
    let seen = 0;
    const refuse = (child: string, problem: string, code = "workspace") =>
      fail(code, `Refused to capture ${options.what}: ${child} ${problem}.`, { path: child });
    const visit = (absolute: string, relative: string, taken: boolean) => {
      const entries = fs.readdirSync(absolute, { withFileTypes: true, encoding: "buffer" }).sort((a, b) => Buffer.compare(a.name, b.name));
      for (const entry of entries) {
        const name = utf8Name(entry.name);
        const shown = name ?? JSON.stringify(entry.name.toString("latin1"));
        const child = relative === "" ? shown : `${relative}/${shown}`;
        if (name === undefined)
          throw refuse(child, "has a name that is not valid UTF-8, which no other machine can restore. Rename or remove it", "session");
        if (++seen > options.maxFiles * 10) {
          throw fail(
            "limit",
            `Refused to capture ${options.what}: more than ${options.maxFiles * 10} entries in its folder. Raise the store's maxFiles limit if this session is legitimate.`,
            { maxFiles: options.maxFiles },
          );
        }
        if (name === ".git") throw refuse(child, "is a .git entry. Remove it from the session folder");
        if (entry.isSymbolicLink()) throw refuse(child, "is a symbolic link. Replace the link by the file it points to");
        const isDirectory = entry.isDirectory();
        const accepted = taken && (!options.accept || options.accept(child, isDirectory));
        if (isDirectory) {
          visit(path.join(absolute, name), child, accepted);
          continue;
        }
        if (!entry.isFile()) throw refuse(child, "is not a regular file. Remove it from the session folder");
        const stat = fs.lstatSync(path.join(absolute, name));
        if (stat.nlink > 1)
          throw refuse(child, `has ${stat.nlink} hard links, so its bytes belong to a file outside the session too. Replace it by a copy`);
        if (!accepted) continue;
        bytes += stat.size;
        files.push({ path: child, size: stat.size, mode: stat.mode & 0o777, mtimeMs: stat.mtimeMs, ino: stat.ino });
        if (files.length > options.maxFiles) {
          throw fail(
            "limit",
            `Refused to capture ${options.what}: more than ${options.maxFiles} files. Raise the store's maxFiles limit if this session is legitimate.`,
            { maxFiles: options.maxFiles },
          );
        }
        if (bytes > options.maxBytes) {
          throw fail(
            "limit",
            `Refused to capture ${options.what}: more than ${options.maxBytes} bytes. Raise the store's maxBytes limit if this session is legitimate.`,
            { maxBytes: options.maxBytes },
          );
        }
      }
    };
    visit(directory, "", true);
    return files;
  }

  /** The name as text, or undefined when its bytes are not valid UTF-8. */
  function utf8Name(bytes: Buffer): string | undefined {
    const text = bytes.toString("utf8");
    return Buffer.from(text, "utf8").equals(bytes) ? text : undefined;
  }

  /** Reads a file and proves it did not change since it was listed, nor while it was read. */
  function readStable(file: string, listed: WalkedFile, what: string): Buffer {
    const relative = listed.path;
    const before = fs.lstatSync(file);
    const bytes = fs.readFileSync(file);
    const after = fs.lstatSync(file);
    if (!sameFile(listed, before) || !sameFile(before, after) || bytes.length !== after.size || after.nlink > 1) {
      throw changed(relative, what);
    }
    return bytes;
  }

  function changed(relative: string, what: string): Error {
    return fail("session", `Refused to capture ${what}: ${relative} changed while it was being read. Capture after the agent has exited.`, {
      path: relative,
    });
  }

  function sameFile(a: { size: number; mtimeMs: number; ino: number }, b: { size: number; mtimeMs: number; ino: number }): boolean {
    return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
  }

  function stagingName(target: string): string {
    return `${path.dirname(target)}/.${path.basename(target)}.outpost-new-${crypto.randomBytes(4).toString("hex")}`;
  }

  const helpers = {
    join: (...segments: string[]) => path.posix.join(...segments),
    sha256: (text: string) => crypto.createHash("sha256").update(text, "utf8").digest("hex"),
    md5: (text: string) => crypto.createHash("md5").update(text, "utf8").digest("hex"),
    normalize: (value: string) => {
      const normalized = path.posix.normalize(value);
      return normalized.length > 1 ? normalized.replace(/\/+$/, "") : normalized;
    },
    basename: (value: string) => path.posix.basename(value.length > 1 ? value.replace(/\/+$/, "") : value),
  };

  return {
    fs,
    path,
    crypto,
    fail,
    lstat,
    cliRoot,
    walk,
    utf8Name,
    readStable,
    changed,
    sameFile,
    stagingName,
    helpers,
    createPathRewriter,
    ...sandboxReplace(fs, path, fail, lstat),
  };
}

export type SandboxLibrary = ReturnType<typeof sandboxLibrary>;
