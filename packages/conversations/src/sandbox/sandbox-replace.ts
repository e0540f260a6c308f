/** One part of a replacement: the complete `staged` entry takes the place of `target` (its sibling). */
export interface Replacement {
  readonly staged: string;
  readonly target: string;
  /**
   * Where the replaced entry is kept once the new one is in place: a new name in a `.outpost-recovery`
   * folder inside the scope. Omitted, the replaced entry is removed.
   */
  readonly recovery?: string;
}

/** Test seam: called after each step of a replacement, so a test can kill the process exactly there. */
export type ReplacementStep = (step: string) => void;

interface JournalEntry extends Replacement {
  readonly backup: string;
  readonly existed: boolean;
}

type Fail = (code: string, message: string, details?: Record<string, unknown>) => Error;

/**
 * Writes in a sandbox folder that the agent controls: no link is followed on the way, and a session made of
 * several entries (a transcript, its sidecar, an index file) is replaced all together or not at all, even
 * across a crash. Part of `sandboxLibrary`, which runs in the sandbox.
 */
export function sandboxReplace(
  fs: typeof import("node:fs"),
  path: typeof import("node:path"),
  fail: Fail,
  lstat: (file: string) => import("node:fs").Stats | undefined,
) {
  /** Name of the folder that keeps replaced sessions, in the CLI home. */
  const RECOVERY = ".outpost-recovery";

  /** `target` relative to `base`, refused when it leaves it. */
  function below(base: string, target: string): string[] {
    const relative = path.relative(base, target);
    if (relative === "") return [];
    if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
      throw fail("workspace", `Refused ${target}: it is outside ${base}.`, { path: target });
    }
    return relative.split(path.sep);
  }

  /** Refuses a link at any component between `base` (trusted) and `target`; returns the first missing one. */
  function assertNoLinkBelow(base: string, target: string, what: string): string | undefined {
    let current = base;
    for (const segment of below(base, target)) {
      current = path.join(current, segment);
      const stat = lstat(current);
      if (!stat) return current;
      if (stat.isSymbolicLink()) {
        throw fail(
          "workspace",
          `Refused to ${what}: ${current} is a symbolic link, and Outpost never follows links in a CLI home. Replace it by a real folder.`,
          { path: current },
        );
      }
    }
    return undefined;
  }

  /** Creates every folder from `base` down to `target` (mode 0700), refusing links and files on the way. */
  function makeFolders(base: string, target: string, what: string): void {
    // `base` itself is trusted (the home, or a CLI home a variable names): it may be created as given.
    fs.mkdirSync(base, { recursive: true, mode: 0o700 });
    let current = base;
    for (const segment of below(base, target)) {
      current = path.join(current, segment);
      try {
        fs.mkdirSync(current, { mode: 0o700 });
      } catch (error) {
        if ((error as { code?: string }).code !== "EEXIST") throw error;
      }
      const stat = fs.lstatSync(current);
      if (stat.isSymbolicLink() || !stat.isDirectory()) {
        throw fail(
          "workspace",
          `Refused to ${what}: ${current} is ${stat.isSymbolicLink() ? "a symbolic link" : "not a folder"}, and Outpost never writes through links. Replace it by a real folder.`,
          { path: current },
        );
      }
    }
  }

  function backupOf(target: string): string {
    return path.join(path.dirname(target), `.${path.basename(target)}.outpost-old`);
  }

  // The prepared journal is created exclusively: it is also the lock that keeps a second replacement of
  // the same session out while this one runs. A crash mid-write leaves an unreadable journal, which is
  // discarded: nothing was renamed before it was complete.
  function createJournal(journal: string, entries: readonly JournalEntry[]): void {
    let handle: number;
    try {
      handle = fs.openSync(journal, "wx", 0o600);
    } catch (error) {
      if ((error as { code?: string }).code === "EEXIST") throw busy(journal);
      throw error;
    }
    try {
      fs.writeSync(handle, JSON.stringify({ outpost: "replacement", phase: "prepared", pid: process.pid, startedAt: Date.now(), entries }));
      fs.fsyncSync(handle);
    } finally {
      fs.closeSync(handle);
    }
  }

  function commitJournal(journal: string, entries: readonly JournalEntry[]): void {
    const temporary = `${journal}.${process.pid}.tmp`;
    // Never through a link planted under this name: remove whatever is there, then create exclusively.
    fs.rmSync(temporary, { recursive: true, force: true });
    fs.writeFileSync(
      temporary,
      JSON.stringify({ outpost: "replacement", phase: "committed", pid: process.pid, startedAt: Date.now(), entries }),
      { mode: 0o600, flag: "wx" },
    );
    fs.renameSync(temporary, journal);
  }

  function busy(journal: string): Error {
    return fail("conflict", `Another restore of this session is running in the sandbox (${journal}). Wait for it to finish, then retry.`, {
      path: journal,
    });
  }

  /** True when the process that wrote the journal may still be running it (another live pid, recent). */
  function inProgress(record: { pid?: unknown; startedAt?: unknown }): boolean {
    if (typeof record.pid !== "number" || record.pid === process.pid) return false;
    if (typeof record.startedAt !== "number" || Date.now() - record.startedAt > 10 * 60 * 1000) return false;
    try {
      process.kill(record.pid, 0);
      return true;
    } catch (error) {
      return (error as { code?: string }).code === "EPERM";
    }
  }

  /** A journal planted by the agent must not steer renames: every path must be one this scope produces. */
  function readJournal(journal: string, scope: string): { phase: string; entries: JournalEntry[] } | undefined {
    const stat = lstat(journal);
    if (!stat) return undefined;
    let record: { outpost?: unknown; phase?: unknown; entries?: unknown; pid?: unknown; startedAt?: unknown } | undefined;
    try {
      record = stat.isFile() ? JSON.parse(fs.readFileSync(journal, "utf8")) : undefined;
    } catch {
      record = undefined;
    }
    const inside = (file: unknown) =>
      typeof file === "string" && path.isAbsolute(file) && file === path.normalize(file) && file.startsWith(`${scope}${path.sep}`);
    const sound =
      record?.outpost === "replacement" &&
      (record.phase === "prepared" || record.phase === "committed") &&
      Array.isArray(record.entries) &&
      (record.entries as Partial<JournalEntry>[]).every(
        (entry) =>
          inside(entry.target) &&
          inside(entry.staged) &&
          entry.backup === backupOf(entry.target!) &&
          path.dirname(entry.staged!) === path.dirname(entry.target!) &&
          path.basename(entry.staged!).includes(".outpost-new-") &&
          (entry.recovery === undefined || (inside(entry.recovery) && path.basename(path.dirname(entry.recovery)) === RECOVERY)) &&
          typeof entry.existed === "boolean",
      );
    const crossesLink =
      sound &&
      (record!.entries as JournalEntry[]).some((entry) => {
        try {
          assertNoLinkBelow(scope, path.dirname(entry.target), "recover");
          return false;
        } catch {
          return true;
        }
      });
    if (!sound || crossesLink) {
      fs.rmSync(journal, { recursive: true, force: true });
      return undefined;
    }
    if (inProgress(record as { pid?: unknown; startedAt?: unknown })) throw busy(journal);
    return record as { phase: string; entries: JournalEntry[] };
  }

  /**
   * Finishes or undoes a replacement that a crash interrupted: committed → the new entries stay and the
   * backups go; prepared → every target gets its old entry back. Safe to repeat.
   */
  function recoverReplacement(journal: string, scope: string): void {
    const record = readJournal(journal, scope);
    if (!record) return;
    if (record.phase === "committed") {
      for (const entry of record.entries) retire(entry, scope);
    } else {
      for (const entry of [...record.entries].reverse()) {
        const backup = lstat(entry.backup);
        if (backup) {
          fs.rmSync(entry.target, { recursive: true, force: true });
          fs.renameSync(entry.backup, entry.target);
        } else if (!entry.existed) {
          fs.rmSync(entry.target, { recursive: true, force: true });
        }
      }
    }
    for (const entry of record.entries) fs.rmSync(entry.staged, { recursive: true, force: true });
    fs.rmSync(journal, { force: true });
  }

  /**
   * Puts every staged entry in place of its target, all or nothing: old targets are renamed to backups, the
   * staged entries renamed in, then the backups removed. `journal` (inside `scope`) records the plan, so
   * the next replacement finishes or undoes one a crash interrupted.
   */
  function replaceTogether(
    journal: string,
    scope: string,
    replacements: readonly Replacement[],
    step: ReplacementStep = () => undefined,
  ): void {
    recoverReplacement(journal, scope);
    const entries: JournalEntry[] = replacements.map(({ staged, target, recovery }) => {
      const found = lstat(target);
      if (found?.isSymbolicLink())
        throw fail("workspace", `Refused to replace ${target}: it is a symbolic link. Remove the link first.`, { path: target });
      return { staged, target, backup: backupOf(target), existed: found !== undefined, ...(recovery === undefined ? {} : { recovery }) };
    });
    createJournal(journal, entries);
    // Only now, holding the journal: a stray backup (no journal of ours made it) must not be renamed back.
    for (const entry of entries) fs.rmSync(entry.backup, { recursive: true, force: true });
    step("prepared");
    try {
      entries.forEach((entry, index) => {
        if (entry.existed) fs.renameSync(entry.target, entry.backup);
        step(`aside ${index}`);
      });
      entries.forEach((entry, index) => {
        fs.renameSync(entry.staged, entry.target);
        step(`in ${index}`);
      });
    } catch (error) {
      recoverReplacement(journal, scope);
      throw error;
    }
    commitJournal(journal, entries);
    step("committed");
    entries.forEach((entry, index) => {
      retire(entry, scope);
      step(`removed ${index}`);
    });
    fs.rmSync(journal, { force: true });
    step("done");
  }

  /** After a committed replacement: the replaced entry moves to its recovery name, or is removed. */
  function retire(entry: JournalEntry, scope: string): void {
    if (entry.recovery !== undefined && lstat(entry.backup)) {
      makeFolders(scope, path.dirname(entry.recovery), "keep the replaced session");
      if (!lstat(entry.recovery)) {
        fs.renameSync(entry.backup, entry.recovery);
        return;
      }
    }
    fs.rmSync(entry.backup, { recursive: true, force: true });
  }

  /** The folder below which nothing is trusted: the home, or the CLI home when a variable puts it elsewhere. */
  function trustedBase(home: string, cliRoot: string): string {
    const resolved = path.resolve(home);
    return cliRoot === resolved || cliRoot.startsWith(`${resolved}${path.sep}`) ? resolved : cliRoot;
  }

  return { assertNoLinkBelow, makeFolders, recoverReplacement, replaceTogether, trustedBase };
}
