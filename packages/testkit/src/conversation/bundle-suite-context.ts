import { readFile, readdir } from "node:fs/promises";
import { join, posix } from "node:path";
import type { NativeConversationStore, SandboxLease, SessionBundleProfile } from "@outpost/core";
import type { SuiteRunner } from "../shared/suite-runner.js";
import { changeSandboxFiles } from "./sandbox-files.js";
import { fixturePair, type FixturePair, type FixturePairOptions } from "./session-fixture.js";

export interface SessionBundleLimits {
  readonly maxBytes: number;
  readonly maxFiles: number;
}

/** The session-bundle engine's documented defaults: 64 MiB and 4,096 files per session. */
export const DEFAULT_SESSION_BUNDLE_LIMITS: SessionBundleLimits = { maxBytes: 64 * 1024 * 1024, maxFiles: 4096 };

export interface DescribeSessionBundleProfileOptions extends FixturePairOptions {
  readonly profile: SessionBundleProfile;
  /** The store built from `profile`, e.g. `sessionBundleStore(profile)` or the agent's own store factory. */
  readonly store: NativeConversationStore;
  /** A recorded session folder (see `fixturePair`) whose home holds a session of this profile. */
  readonly fixture: string;
  /** The limits `store` was built with; the engine's defaults when omitted. */
  readonly limits?: Partial<SessionBundleLimits>;
  readonly runner?: SuiteRunner;
}

/** Text planted outside the session: it must never reach the host, whatever the session folder links to. */
export const OUTSIDE_SECRET = "outpost-kit-outside-secret-7d41c9";

/** One recorded session in a source sandbox, and an empty target sandbox, for one check. */
export interface BundleCase {
  readonly pair: FixturePair;
  readonly id: string;
  /** The session folder in the source sandbox. */
  readonly session: string;
  /** A folder in the source home, outside the CLI home, holding `secret.txt`. */
  readonly outside: string;
}

/** The CLI home of the profile in a sandbox (the profile's variable is not set by the kit). */
export function cliRoot(profile: SessionBundleProfile, lease: SandboxLease): string {
  return posix.join(lease.home, profile.root.directory);
}

/** Runs `check` on a fresh fixture pair; always disposes it. */
export async function withBundleCase(
  options: DescribeSessionBundleProfileOptions,
  check: (scene: BundleCase) => Promise<void>,
): Promise<void> {
  const pair = await fixturePair(options.fixture, options);
  try {
    const id = pair.recording.id;
    const session = options.store.destination(id, pair.source.lease, "");
    const outside = posix.join(pair.source.lease.home, ".outpost-kit-outside");
    await changeSandboxFiles(pair.source.lease, [{ kind: "write", path: posix.join(outside, "secret.txt"), text: `${OUTSIDE_SECRET}\n` }]);
    await check({ pair, id, session, outside });
  } finally {
    await pair.dispose();
  }
}

/** The secret as text and as base64 at each of the three byte alignments (a bundle may encode files). */
const SECRET_FORMS = [
  OUTSIDE_SECRET,
  ...[0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), Buffer.from(OUTSIDE_SECRET)]).toString("base64");
    // The first group mixes with the bytes before, the last with the bytes after.
    return encoded.slice(offset === 0 ? 0 : 4, -4);
  }),
];

/** Host files (captured bundles, staging) that hold the outside secret, as text or base64. */
export async function hostFilesWithSecret(pair: FixturePair): Promise<string[]> {
  const found: string[] = [];
  const holdsSecret = (text: string) => SECRET_FORMS.some((form) => text.includes(form));
  const visit = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await visit(path);
      // Only regular files: reading a planted fifo would block.
      else if (entry.isFile() && holdsSecret(await readFile(path, "latin1"))) found.push(path);
    }
  };
  for (const folder of ["host-home", "staging"]) await visit(join(pair.source.base, folder));
  return found;
}
