import { chmod, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { normalizeRelativePath, OutpostError, type AgentHomeFile, type CommandHomeFile, type SandboxLease } from "@outpost/core";

export interface HomeFileOptions {
  /** The lease home is a folder of the host (host placement): it may be the user's own home. */
  readonly host?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * Writes the agent's settings files into the lease home: staged on the host as 0600 files in 0700
 * directories, then uploaded (uploads keep modes). A path leaving the home is refused (code `workspace`).
 * On a host home nothing already there is replaced: a file with the same bytes is left as it is, and one
 * with other bytes (the user's own configuration) fails the dispatch with `configuration` before the turn.
 */
export async function writeHomeFiles(
  lease: SandboxLease,
  files: readonly AgentHomeFile[],
  staging: string,
  options: HomeFileOptions = {},
): Promise<void> {
  if (files.length === 0) return;
  let contents = homeFileContents(files);
  if (options.host === true) contents = await absentFromHostHome(lease.home, contents);
  if (contents.size === 0) return;
  const directory = await mkdtemp(join(staging, "home-"));
  try {
    await chmod(directory, 0o700);
    const targets = [...contents].map(([path, content]) => [join(directory, path), content] as const);
    await Promise.all(
      [...new Set(targets.map(([target]) => dirname(target)))].map((parent) => mkdir(parent, { recursive: true, mode: 0o700 })),
    );
    await Promise.all(
      targets.map(async ([target, content]) => {
        await writeFile(target, content, { mode: 0o600 });
        await chmod(target, 0o600);
      }),
    );
    await lease.upload(directory, lease.home, options.signal ? { signal: options.signal } : {});
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * The files as the lease's command writes them itself (`lease.homeFiles`): paths normalized (one leaving the
 * home is refused, code `workspace`), a path given twice keeps its last content.
 */
export function commandHomeFiles(files: readonly AgentHomeFile[]): CommandHomeFile[] {
  return [...homeFileContents(files)].map(([path, content]) => ({ path, content }));
}

function homeFileContents(files: readonly AgentHomeFile[]): Map<string, string> {
  const paths = files.map((file) => normalizeRelativePath(file.path, "agent home file"));
  // A path given twice keeps its last content, as before.
  return new Map(files.map((file, index) => [paths[index]!, file.content]));
}

/** The files still to write into a host home: those absent; identical ones are skipped, different ones refused. */
async function absentFromHostHome(home: string, contents: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const absent = new Map<string, string>();
  await Promise.all(
    [...contents].map(async ([path, content]) => {
      const target = join(home, path);
      const found = await lstat(target).catch(() => undefined);
      if (found === undefined) {
        absent.set(path, content);
        return;
      }
      const same = found.isFile() && (await readFile(target, "utf8").catch(() => undefined)) === content;
      if (same) return;
      throw new OutpostError(
        "configuration",
        `The agent would replace ${target}, which is already in the lease home (a home of the host, maybe yours). ` +
          `Outpost never overwrites files there: move that file away, or run with localProvider({ home: "private" }).`,
        { details: { path: target } },
      );
    }),
  );
  return absent;
}
