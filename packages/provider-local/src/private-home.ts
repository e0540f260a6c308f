import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** `"host"` (default): your home (`os.homedir()`); `"private"`: a fresh 0700 directory per lease; or a path. */
export type LocalHome = "private" | "host" | (string & {});

export interface LeaseHome {
  readonly path: string;
  /** Removes the directory when the lease created it. */
  dispose(): Promise<void>;
}

export async function leaseHome(home: LocalHome): Promise<LeaseHome> {
  if (home === "private") {
    const path = await mkdtemp(join(tmpdir(), "outpost-home-"));
    return { path, dispose: () => rm(path, { recursive: true, force: true }) };
  }
  const path = home === "host" ? homedir() : resolve(home);
  await mkdir(path, { recursive: true, mode: 0o700 });
  return { path, dispose: async () => undefined };
}
