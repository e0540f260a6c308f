import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Gives a benchmark process a temporary root of its own: TMPDIR, which `os.tmpdir()` and every process it
 * starts follow, so the scratch repositories, caches and worktrees a run makes (thousands of them) go there,
 * and it is removed when the process exits (OUTPOST_KEEP_TEMP=1 keeps it), as each test file's root is.
 * Call it before anything makes a temporary file. Returns the root.
 *
 * `inMemory`: the root goes on /dev/shm (tmpfs) when there is one. Creating the same 10,000 files on this
 * kind of machine's disk took anywhere from 0.05 s to 2.5 s of kernel time from one run to the next, which
 * decides a ratio more than either side's own work; in memory both sides pay the same few milliseconds.
 */
export function usePrivateTmpdir(prefix = "outpost-bench-", options: { readonly inMemory?: boolean } = {}): string {
  const root = mkdtempSync(join(options.inMemory === true && writable("/dev/shm") ? "/dev/shm" : tmpdir(), prefix));
  process.env.TMPDIR = root;
  process.on("exit", () => {
    if (process.env.OUTPOST_KEEP_TEMP !== "1") rmSync(root, { recursive: true, force: true });
  });
  return root;
}

function writable(directory: string): boolean {
  try {
    accessSync(directory, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
