import { createHash } from "node:crypto";
import { OutpostError } from "@outpost/core";

/** A pinned SHA-512 given as SRI (`sha512-<base64>`) or as 128 hex digits → lowercase hex. */
export function parseSha512(text: unknown, what: string): string {
  if (typeof text === "string") {
    if (/^[0-9a-fA-F]{128}$/.test(text)) return text.toLowerCase();
    const sri = /^sha512-([A-Za-z0-9+/]{86}==)$/.exec(text);
    if (sri) return Buffer.from(sri[1]!, "base64").toString("hex");
  }
  throw new OutpostError(
    "configuration",
    `${what} must be a SHA-512 digest: "sha512-<base64>" (as in package-lock.json) or 128 hex digits. Compute it with \`sha512sum <archive>\`.`,
  );
}

export function sha512Hex(bytes: Uint8Array): string {
  return createHash("sha512").update(bytes).digest("hex");
}
