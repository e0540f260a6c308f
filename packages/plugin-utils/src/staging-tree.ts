import {
  closeSync,
  constants,
  copyFileSync,
  fchmodSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  openSync,
  symlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";

type Kind = "directory" | "file" | "link";

const CREATE_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * The private staging directory an archive from the sandbox is written into. Rule: nothing is ever written
 * through a link or into a file: every parent on the way is a directory this tree made (or found, as a real
 * directory, from an earlier archive into the same staging), and the last part is created exclusively
 * (O_EXCL | O_NOFOLLOW), so an entry that repeats a path or lies below a link or file of the archive is
 * refused. Calls are synchronous: one system call each, instead of a thread-pool round trip per call,
 * which cost more than the writes of small files.
 */
export class StagingTree {
  private readonly kinds = new Map<string, Kind>([["", "directory"]]);

  constructor(private readonly top: string) {}

  directory(path: string): void {
    const known = this.kinds.get(path);
    if (known === "directory") return;
    if (known !== undefined) throw stagingRefusal(path, `it is also a ${known} of the archive`);
    this.parents(path);
    this.makeDirectory(path);
  }

  /** Creates an empty file with owner-only access and returns its descriptor (see `finishFile`). */
  openFile(path: string): number {
    this.claim(path, "file");
    return exclusive(path, () => openSync(join(this.top, path), CREATE_FILE, 0o600));
  }

  /** Writes all of `chunk` (a regular file may take a write in parts). */
  write(descriptor: number, chunk: Buffer): void {
    for (let offset = 0; offset < chunk.length;) offset += writeSync(descriptor, chunk, offset);
  }

  /** Gives the file its mode and time through its descriptor (never a path), then closes it. */
  finishFile(descriptor: number, mode: number, mtime: Date | undefined): void {
    try {
      fchmodSync(descriptor, mode);
      if (mtime !== undefined) futimesSync(descriptor, mtime, mtime);
    } finally {
      closeSync(descriptor);
    }
  }

  /** Closes a file whose bytes did not all arrive (the staging directory goes as a whole). */
  abandon(descriptor: number): void {
    closeSync(descriptor);
  }

  link(path: string, target: string): void {
    this.claim(path, "link");
    exclusive(path, () => symlinkSync(target, join(this.top, path)));
  }

  /** A hard link of the archive: a copy of a file this tree wrote. */
  copy(original: string, path: string, mode: number, mtime: Date | undefined): void {
    if (this.kinds.get(original) !== "file") throw stagingRefusal(path, "it is a hard link to something that is not a file of the archive");
    this.claim(path, "file");
    exclusive(path, () => copyFileSync(join(this.top, original), join(this.top, path), constants.COPYFILE_EXCL));
    const descriptor = openSync(join(this.top, path), constants.O_WRONLY | constants.O_NOFOLLOW);
    this.finishFile(descriptor, mode, mtime);
  }

  private claim(path: string, kind: Kind): void {
    const known = this.kinds.get(path);
    if (known !== undefined)
      throw stagingRefusal(path, known === kind ? "it appears twice in the archive" : `it is also a ${known} of the archive`);
    this.parents(path);
    this.kinds.set(path, kind);
  }

  /** Makes the missing parents of `path`, refusing one that is a file or link of the archive. */
  private parents(path: string): void {
    const parts = path.split("/");
    let prefix = "";
    for (let index = 0; index < parts.length - 1; index++) {
      prefix = index === 0 ? parts[0]! : `${prefix}/${parts[index]}`;
      const known = this.kinds.get(prefix);
      if (known === "directory") continue;
      if (known !== undefined) throw stagingRefusal(path, `it lies below ${JSON.stringify(prefix)}, a ${known} of the archive`);
      this.makeDirectory(prefix);
    }
  }

  private makeDirectory(path: string): void {
    const full = join(this.top, path);
    try {
      mkdirSync(full, { mode: 0o700 });
    } catch (error) {
      // Staged by an earlier archive into the same staging: accepted only as a real directory.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !lstatSync(full).isDirectory())
        throw stagingRefusal(path, "it lies on a file or link staged before");
    }
    this.kinds.set(path, "directory");
  }
}

/** A name an earlier archive into the same staging already took is refused, never replaced. */
function exclusive<T>(path: string, create: () => T): T {
  try {
    return create();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw stagingRefusal(path, "it was staged before");
    throw error;
  }
}

export function stagingRefusal(path: string, problem: string): OutpostError {
  return new OutpostError("workspace", `Refused ${JSON.stringify(path)} from the sandbox: ${problem}. Leave it out of the transfer.`, {
    details: { path },
  });
}
