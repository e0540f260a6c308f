import { realpath } from "node:fs/promises";
import { dirname, isAbsolute } from "node:path";
import { OutpostError, isInside, type SandboxAnchors } from "@outpost/core";
import { resolveCommandDirectory, resolveTransferPath } from "@outpost/plugin-utils";

/**
 * Resolves a transfer's sandbox path with core's rule (relative inside root, or absolute under root or
 * home), then refuses it when a link on the way leads outside the root or home it belongs to.
 */
export async function transferPath(lease: SandboxAnchors, path: string, what: string): Promise<string> {
  const { path: full, anchor } = resolveTransferPath(lease, path, what);
  await assertNoEscapingLink(anchor, full, path, what);
  return full;
}

/**
 * Resolves a command directory: absolute as given (a command may `cd` anywhere anyway), relative against
 * `root`, where it must stay inside the root, also after following the links on the way.
 */
export async function commandDirectory(root: string, path: string, what: string): Promise<string> {
  const full = resolveCommandDirectory(root, path, what);
  if (isAbsolute(path)) return full;
  await assertNoEscapingLink(root, full, path, what);
  return full;
}

async function assertNoEscapingLink(anchor: string, full: string, path: string, what: string): Promise<void> {
  const realAnchor = await realpath(anchor).catch((error: NodeJS.ErrnoException) => {
    throw new OutpostError(
      "workspace",
      `Cannot use ${what} ${JSON.stringify(path)}: ${JSON.stringify(anchor)} is gone (${error.code ?? error.message}). Acquire a new lease.`,
      {
        cause: error,
        details: { path, anchor },
      },
    );
  });
  let probe = full;
  for (;;) {
    const real = await realpath(probe).catch(() => undefined);
    if (real !== undefined) {
      if (!isInside(realAnchor, real)) {
        throw new OutpostError(
          "workspace",
          `Refused ${what} ${JSON.stringify(path)}: a symbolic link on the way leads outside ${JSON.stringify(anchor)}. Use a path that stays inside the lease root or home.`,
          {
            details: { path, anchor },
          },
        );
      }
      return;
    }
    if (probe === anchor || dirname(probe) === probe) return;
    probe = dirname(probe);
  }
}
