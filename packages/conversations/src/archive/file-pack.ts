import { lstat, mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { assertHostOwned, OutpostError } from "@outpost/core";
import { relativeNameProblem } from "../relative-name.js";

const MAGIC = "outpost-pack 1\n";

interface PackHeader {
  readonly files: readonly { readonly path: string; readonly size: number; readonly mode: number }[];
}

/**
 * Packs the regular files under `directory` (no links) into one byte string: a JSON header, then the bytes.
 * Each must be the host user's own writing (core's `assertHostOwned`): an archive is restored into sandboxes.
 */
export async function packDirectory(directory: string): Promise<Uint8Array> {
  const files: { path: string; size: number; mode: number }[] = [];
  const chunks: Buffer[] = [];
  const visit = async (absolute: string, relative: string): Promise<void> => {
    const entries = (await readdir(absolute, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await visit(join(absolute, entry.name), child);
      else if (entry.isFile()) {
        const stat = await lstat(join(absolute, entry.name));
        assertHostOwned(join(absolute, entry.name), stat, { what: "a file of a captured conversation", code: "workspace" });
        const bytes = await readFile(join(absolute, entry.name));
        files.push({ path: child, size: bytes.length, mode: stat.mode & 0o777 });
        chunks.push(bytes);
      } else {
        throw new OutpostError("workspace", `Refused to archive ${child}: it is a link or special file. Capture the conversation again.`, {
          details: { path: child },
        });
      }
    }
  };
  await visit(directory, "");
  const header = Buffer.from(`${MAGIC}${JSON.stringify({ files } satisfies PackHeader)}\n`, "utf8");
  return Buffer.concat([header, ...chunks]);
}

/** Unpacks `bytes` into `directory` (which must be new or empty), refusing paths that leave it. */
export async function unpackDirectory(bytes: Uint8Array, directory: string, what: string): Promise<void> {
  try {
    await unpackInto(bytes, directory, what);
  } catch (error) {
    if (OutpostError.isInstance(error)) throw error;
    throw new OutpostError("session", `The archived ${what} could not be unpacked: ${(error as Error).message}. Capture it again.`, {
      cause: error,
    });
  }
}

async function unpackInto(bytes: Uint8Array, directory: string, what: string): Promise<void> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const corrupt = (problem: string) =>
    new OutpostError("session", `The archived ${what} is corrupt: ${problem}. Capture it again.`, { details: { problem } });
  if (buffer.subarray(0, MAGIC.length).toString("utf8") !== MAGIC) throw corrupt("it is not an Outpost pack");
  const end = buffer.indexOf(0x0a, MAGIC.length);
  if (end === -1) throw corrupt("its header is cut");
  let header: PackHeader;
  try {
    header = JSON.parse(buffer.subarray(MAGIC.length, end).toString("utf8")) as PackHeader;
  } catch {
    throw corrupt("its header is not JSON");
  }
  if (!Array.isArray(header.files)) throw corrupt("its file list is missing");
  let offset = end + 1;
  for (const file of header.files) {
    if (!file || typeof file.path !== "string" || !Number.isSafeInteger(file.size) || file.size < 0)
      throw corrupt("a file entry is malformed");
    const problem = relativeNameProblem(file.path);
    if (problem) throw corrupt(`${JSON.stringify(file.path)} is not a safe relative path: ${problem}`);
    const relative = file.path;
    if (offset + file.size > buffer.length) throw corrupt("it is shorter than its header says");
    const target = join(directory, relative);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, buffer.subarray(offset, offset + file.size), { flag: "wx", mode: (file.mode ?? 0o600) & 0o777 });
    offset += file.size;
  }
  if (offset !== buffer.length) throw corrupt("it is longer than its header says");
}
