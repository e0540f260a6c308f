import { posix } from "node:path";
import { OutpostError } from "../errors/outpost-error.js";
import { isInside, resolveInside } from "./relative-path.js";

/** The two sandbox directories a lease exposes to transfers (see SandboxLease.root and .home). */
export interface SandboxAnchors {
  readonly root: string;
  readonly home: string;
}

/** A legal sandbox path, and the directory (root or home) it must not leave through a link on the way. */
export interface LegalSandboxPath {
  readonly path: string;
  readonly anchor: string;
}

/**
 * The sandbox paths a transfer (upload destination, download source, manifest and batch sources and
 * destinations) may name: a path relative to the lease root that stays inside it, or an absolute path
 * under the lease root or the lease home. Anything else (`/etc/passwd`, `/tmp/x`, `../x`) is refused with
 * code `workspace`. Links are not followed here: a provider must also refuse a link on the way that
 * leaves the returned `anchor`.
 */
export function resolveSandboxPath(lease: SandboxAnchors, path: string, what = "sandbox path"): LegalSandboxPath {
  if (typeof path !== "string" || path === "") {
    throw refusal(String(path), what, "it is empty", lease);
  }
  if (path.includes("\0")) throw refusal(path, what, "it contains a NUL byte", lease);
  if (!posix.isAbsolute(path)) return { path: resolveInside(lease.root, path, what), anchor: posix.normalize(lease.root) };
  const full = posix.normalize(path).replace(/(.)\/+$/, "$1");
  for (const anchor of [lease.root, lease.home]) {
    const normalized = posix.normalize(anchor).replace(/(.)\/+$/, "$1");
    if (isInside(normalized, full)) return { path: full, anchor: normalized };
  }
  throw refusal(
    path,
    what,
    `it is outside the lease root ${JSON.stringify(lease.root)} and the lease home ${JSON.stringify(lease.home)}`,
    lease,
  );
}

/** True when `resolveSandboxPath` accepts `path` for this lease. */
export function isLegalSandboxPath(lease: SandboxAnchors, path: string): boolean {
  try {
    resolveSandboxPath(lease, path);
    return true;
  } catch {
    return false;
  }
}

function refusal(path: string, what: string, problem: string, lease: SandboxAnchors): OutpostError {
  return new OutpostError(
    "workspace",
    `Refused ${what} ${JSON.stringify(path)}: ${problem}. Give a path relative to the lease root, or an absolute path under the lease root or home.`,
    {
      details: { path, root: lease.root, home: lease.home },
    },
  );
}
