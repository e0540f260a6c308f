import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readlink } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError, type FileManifestEntry } from "@outpost/core";
import { assertLinkStaysInside, type StagedEntry } from "@outpost/plugin-utils";

/**
 * Page 002: files come back SHA-256 checked. Whichever way they travelled (inline archive, a fileTransfers
 * batch, one by one), each staged file is read again on the host and must be what the manifest says: same
 * kind, size and SHA-256 (of the bytes, or of a link's target text), and the manifest must name exactly the
 * paths asked for. A mismatch refuses the whole sync back (code `workspace`) before the worktree is touched.
 */
export async function verifyStagedFiles(
  staging: string,
  manifest: readonly FileManifestEntry[],
  wanted: readonly string[],
  signal?: AbortSignal,
): Promise<StagedEntry[]> {
  const asked = new Set(wanted);
  const listed = new Set(manifest.map((entry) => entry.path));
  for (const entry of manifest) if (!asked.has(entry.path)) throw mismatch(entry.path, "it was not asked for");
  for (const path of wanted) if (!listed.has(path)) throw mismatch(path, "the sandbox's manifest does not list it");
  const verified: StagedEntry[] = [];
  for (const entry of manifest) {
    signal?.throwIfAborted();
    const place = join(staging, entry.path);
    const found = await lstat(place).catch(() => undefined);
    if (entry.kind === "link") {
      if (!found?.isSymbolicLink()) throw mismatch(entry.path, "the manifest lists a link, and no link came back");
      const target = await readlink(place);
      assertLinkStaysInside(entry.path, target);
      if (sha256(Buffer.from(target)) !== entry.sha256) throw mismatch(entry.path, "its target does not match the manifest's SHA-256");
      verified.push({ path: entry.path, kind: "link", mode: entry.mode, size: entry.size, sha256: entry.sha256, target });
      continue;
    }
    if (!found?.isFile()) throw mismatch(entry.path, "the manifest lists a file, and no regular file came back");
    if (found.size !== entry.size) throw mismatch(entry.path, `${found.size} bytes came back, the manifest says ${entry.size}`);
    if ((await fileSha256(place)) !== entry.sha256) throw mismatch(entry.path, "its bytes do not match the manifest's SHA-256");
    verified.push({ path: entry.path, kind: "file", mode: found.mode & 0o7777, size: entry.size, sha256: entry.sha256 });
  }
  return verified;
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

function mismatch(path: string, problem: string): OutpostError {
  return new OutpostError(
    "workspace",
    `Refused to bring ${JSON.stringify(path)} back from the sandbox: ${problem}. Nothing of the sandbox's uncommitted files reached the host worktree.`,
    { details: { path } },
  );
}
