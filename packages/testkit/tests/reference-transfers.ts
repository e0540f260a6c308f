import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { chmod, copyFile, lstat, mkdir, rm, symlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { throwIfAborted, type SandboxAnchors, type TransferOptions } from "@outpost/core";
import type { ReferenceFlaws } from "./provider-reference.js";
import { referenceGuard } from "./reference-guard.js";
import { assertDestinationSafe, referenceSandboxPath, scanSource, travellingMode } from "./reference-paths.js";

/** upload / download of the reference lease: checked like a real provider, or today's naive `cp -a` with `naiveTransfers`. */
export function referenceTransfers(lease: SandboxAnchors, flaws: ReferenceFlaws) {
  return {
    async upload(source: string, destination: string, options?: TransferOptions): Promise<void> {
      if (flaws.naiveTransfers) return naiveCopy(source, resolve(lease.root, destination), options?.signal);
      const check = referenceGuard(options, "The upload", flaws);
      await copyChecked(resolve(source), await referenceSandboxPath(lease, destination, "destination", flaws), check, flaws);
    },
    async download(source: string, destination: string, options?: TransferOptions): Promise<void> {
      if (flaws.naiveTransfers) return naiveCopy(resolve(lease.root, source), destination, options?.signal);
      const check = referenceGuard(options, "The download", flaws);
      await copyChecked(await referenceSandboxPath(lease, source, "source", flaws), resolve(destination), check, flaws);
    },
  };
}

/** Everything is checked before the first write; then one entry at a time, checking the deadline and signal between them. */
async function copyChecked(source: string, destination: string, check: () => void, flaws: ReferenceFlaws): Promise<void> {
  const tree = await scanSource(source, check);
  if (tree.kind === "file") {
    await mkdir(dirname(destination), { recursive: true });
    await placeFile(source, destination, flaws.transfersDropModes ? 0o644 : travellingMode(tree.entries[0]!.mode, flaws));
    return;
  }
  const directories = new Set(tree.entries.filter((entry) => entry.kind === "directory").map((entry) => entry.path));
  await assertDestinationSafe(
    destination,
    tree.entries.map((entry) => entry.path),
    directories,
  );
  await mkdir(destination, { recursive: true });
  for (const entry of tree.entries) {
    check();
    const to = join(destination, entry.path);
    if (entry.kind === "directory") {
      if (!flaws.transfersLoseEmptyDirectories) await mkdir(to, { recursive: true });
      continue;
    }
    await mkdir(dirname(to), { recursive: true });
    if (entry.kind === "file")
      await placeFile(join(source, entry.path), to, flaws.transfersDropModes ? 0o644 : travellingMode(entry.mode, flaws));
    else {
      await rm(to, { force: true });
      await symlink(entry.target!, to);
    }
  }
  for (const entry of [...tree.entries].reverse())
    if (entry.kind === "directory") await chmod(join(destination, entry.path), travellingMode(entry.mode, flaws)).catch(() => undefined);
}

async function placeFile(from: string, to: string, mode: number): Promise<void> {
  if ((await lstat(to).catch(() => undefined))?.isSymbolicLink()) await rm(to);
  await copyFile(from, to);
  await chmod(to, mode);
}

/** Today's naive copy: follows links, accepts ../ and absolute paths anywhere. */
async function naiveCopy(source: string, destination: string, signal: AbortSignal | undefined): Promise<void> {
  throwIfAborted(signal, "The copy");
  if (statSync(source).isDirectory()) {
    execFileSync("mkdir", ["-p", destination]);
    execFileSync("cp", ["-a", `${source}/.`, destination]);
  } else {
    execFileSync("mkdir", ["-p", dirname(destination)]);
    execFileSync("cp", ["-a", source, destination]);
  }
}
