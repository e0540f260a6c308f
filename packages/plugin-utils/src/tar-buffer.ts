import { OutpostError } from "@outpost/core";
import type { ArchiveHeader } from "./archive-staging.js";

const BLOCK = 512;

/** Type flags of the tar formats (ustar, GNU, pax) as tar-stream names them; anything else is special. */
const TYPES: Readonly<Record<string, string>> = {
  "0": "file",
  "\0": "file",
  "1": "link",
  "2": "symlink",
  "3": "character-device",
  "4": "block-device",
  "5": "directory",
  "6": "fifo",
  "7": "contiguous-file",
};

/**
 * Why not tar-stream (which `unpackToStaging` uses for streamed archives): the archive is already in memory
 * and the staging rules run per entry synchronously; tar-stream's extract is a stream with a callback per
 * entry. On 2,000 small files (899 kB) it took 58–312 ms against 7–74 ms here (4 rounds, same run, 2 cores
 * under load). Both put each header through the same `ArchiveStaging` checks.
 *
 * Reads the entries of a tar archive held in memory, in order, with their bytes: ustar (with its name
 * prefix), GNU long names and link names (`L`, `K`) and pax headers (`x`: path, linkpath, size, mtime; `g`
 * is skipped). A header whose checksum is wrong, a number that is not one, or an entry running past the end
 * is refused (code `workspace`); the archive ends at its first zero block. Special types come out named, for
 * the caller to refuse.
 */
export function* readTarBuffer(archive: Buffer): Generator<{ header: ArchiveHeader; data: Buffer }> {
  let offset = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax: Map<string, string> | undefined;
  while (offset + BLOCK <= archive.length) {
    const at = offset;
    const block = archive.subarray(at, at + BLOCK);
    if (block.every((byte) => byte === 0)) return;
    checkSum(block, at);
    const flag = String.fromCharCode(block[156]!);
    // A pax size stands for the header's (which holds only 8 GiB).
    const paxSize = flag === "x" || flag === "g" ? undefined : pax?.get("size");
    const size = paxSize === undefined ? number(block, 124, 12, "size", at) : Number(paxSize);
    if (!Number.isSafeInteger(size) || size < 0) throw corrupt(`the size at byte ${at} is not a number`);
    const start = at + BLOCK;
    const end = start + size;
    if (end > archive.length) throw corrupt(`the entry at byte ${at} runs past the end of the archive`);
    const data = archive.subarray(start, end);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
    if (flag === "L") longName = text(data, 0, data.length);
    else if (flag === "K") longLink = text(data, 0, data.length);
    else if (flag === "x") pax = paxRecords(data);
    else if (flag !== "g") {
      const header = entryHeader(block, flag, size, at, { longName, longLink, pax });
      longName = longLink = pax = undefined;
      yield { header, data: header.type === "file" || header.type === "contiguous-file" ? data : Buffer.alloc(0) };
    }
  }
  if (offset < archive.length) throw corrupt("it ends inside a header");
}

interface Extensions {
  readonly longName: string | undefined;
  readonly longLink: string | undefined;
  readonly pax: Map<string, string> | undefined;
}

function entryHeader(block: Buffer, flag: string, size: number, at: number, extensions: Extensions): ArchiveHeader {
  const ustar = block.toString("latin1", 257, 263) === "ustar\0";
  const prefix = ustar ? text(block, 345, 155) : "";
  const name = extensions.pax?.get("path") ?? extensions.longName ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
  let type = TYPES[flag] ?? `special (${JSON.stringify(flag)})`;
  // Old archives mark a directory by the trailing slash of a file entry.
  if (flag === "\0" || flag === "0") if (name.endsWith("/")) type = "directory";
  const paxTime = extensions.pax?.get("mtime");
  const seconds = paxTime !== undefined ? Number(paxTime) : number(block, 136, 12, "mtime", at);
  if (!Number.isFinite(seconds)) throw corrupt(`the time of ${JSON.stringify(name)} is not a number`);
  return {
    name,
    type,
    mode: number(block, 100, 8, "mode", at),
    mtime: new Date(seconds * 1000),
    size,
    linkname: extensions.pax?.get("linkpath") ?? extensions.longLink ?? text(block, 157, 100),
  };
}

/** The header checksum: the sum of its bytes with the checksum field read as spaces. */
function checkSum(block: Buffer, at: number): void {
  let sum = 8 * 0x20;
  for (let index = 0; index < BLOCK; index++) if (index < 148 || index >= 156) sum += block[index]!;
  if (number(block, 148, 8, "checksum", at) !== sum) throw corrupt(`the header at byte ${at} has a wrong checksum`);
}

/** An octal field (NUL or space ended), or GNU's base-256 form (high bit set) for large values. */
function number(block: Buffer, start: number, length: number, name: string, at: number): number {
  if (block[start]! & 0x80) {
    let value = 0;
    for (let index = start + 1; index < start + length; index++) value = value * 256 + block[index]!;
    if (block[start] !== 0x80 || !Number.isSafeInteger(value)) throw corrupt(`the ${name} at byte ${at} is out of range`);
    return value;
  }
  const raw = block.toString("latin1", start, start + length);
  const nul = raw.indexOf("\0");
  const digits = (nul === -1 ? raw : raw.slice(0, nul)).trim();
  if (digits === "") return 0;
  if (!/^[0-7]+$/.test(digits)) throw corrupt(`the ${name} at byte ${at} is not an octal number`);
  return parseInt(digits, 8);
}

/** A NUL-terminated UTF-8 field. */
function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.toString("utf8", 0, end === -1 ? field.length : end);
}

/** pax records: `<length> <key>=<value>\n`, the length counting the whole record. */
function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let offset = 0;
  while (offset < data.length && data[offset] !== 0) {
    const space = data.indexOf(0x20, offset);
    const length = Number(data.toString("latin1", offset, space));
    if (space === -1 || !Number.isSafeInteger(length) || length <= 0 || offset + length > data.length || data[offset + length - 1] !== 0x0a)
      throw corrupt("a pax record is malformed");
    const record = data.toString("utf8", space + 1, offset + length - 1);
    const equals = record.indexOf("=");
    if (equals === -1) throw corrupt("a pax record has no value");
    records.set(record.slice(0, equals), record.slice(equals + 1));
    offset += length;
  }
  return records;
}

function corrupt(problem: string): OutpostError {
  return new OutpostError(
    "workspace",
    `Refused the archive from the sandbox: ${problem}. Nothing of it was applied; check the sandbox's tar and disk space, then retry.`,
  );
}
