import { lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { OutpostError } from "@outpost/core";
import type { ConversationRecord, NativeConversationStore, SandboxLease, SessionBundleProfile } from "@outpost/core";
import { walkSession } from "./reference-bundle-walk.js";

/** One deliberate defect per flag, so the kit's own tests can prove each check catches it. */
export interface BundleStoreFlaws {
  /** Reads through symbolic links, in the session folder and on the way to it. */
  readonly followsLinks?: boolean;
  /** Walks the session folder for links, but follows links on the way to it (or at it). */
  readonly followsLinksOnTheWay?: boolean;
  /** Captures files that have other hard links. */
  readonly followsHardLinks?: boolean;
  /** Ignores include and exclude: the whole session folder is captured. */
  readonly capturesEverything?: boolean;
  /** Restores the captured bytes as they are: recorded paths are not moved. */
  readonly keepsStalePaths?: boolean;
  /** Ids are joined into paths unchecked. */
  readonly acceptsAnyId?: boolean;
  /** No size or count limit. */
  readonly noLimits?: boolean;
  /** Restore writes through links on the way to the destination. */
  readonly restoresThroughLinks?: boolean;
  /** Restore drops leading dashes from names, as a careless shell-out would have to. */
  readonly stripsLeadingDashes?: boolean;
  /** Applies include and exclude as written, without `s`: `.` skips names that hold a line break. */
  readonly dropsLineBreakNames?: boolean;
}

/**
 * A small host-side session-bundle store (for leases whose home is a host folder, as the reference
 * provider's), correct by default: it passes `describeSessionBundleProfile`. Unbucketed profiles only.
 */
export function referenceBundleStore(
  profile: SessionBundleProfile,
  limits: { readonly maxBytes: number; readonly maxFiles: number },
  flaws: BundleStoreFlaws = {},
): NativeConversationStore {
  const checkId = (id: string) => {
    if (!flaws.acceptsAnyId && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id))
      throw new OutpostError("configuration", `${JSON.stringify(id)} is not a session id. Pass the id the agent reported.`);
    return id;
  };
  const directory = (repository: string, home?: string) => join(home ?? repository, ".outpost", "conversations", profile.format);
  const destination = (id: string, sandbox: SandboxLease) => join(sandbox.home, profile.root.directory, profile.sessions, checkId(id));
  // No folder from the home down to `path` (itself included) may be a link.
  const assertNoLink = (home: string, path: string) => {
    const parts = relative(home, path).split(sep);
    for (let depth = 1; depth <= parts.length; depth += 1) {
      const folder = join(home, ...parts.slice(0, depth));
      if (lstatSync(folder, { throwIfNoEntry: false })?.isSymbolicLink())
        throw new OutpostError("workspace", `Refused: ${folder} is a symbolic link. Replace it by a folder.`);
    }
  };
  async function locate(id: string, repository: string, home?: string): Promise<ConversationRecord> {
    const file = join(directory(repository, home), `${checkId(id)}.json`);
    if (!lstatSync(file, { throwIfNoEntry: false })?.isFile())
      throw new OutpostError("session", `No captured ${profile.format} session ${id}. Capture it first.`);
    return { id, file, format: profile.format };
  }
  return {
    specificationVersion: "v1",
    name: `reference-${profile.format}`,
    format: profile.format,
    directory,
    destination,
    locate,
    async capture(id, context) {
      const lease = context.sandbox;
      const folder = destination(id, lease);
      if (!flaws.followsLinks && !flaws.followsLinksOnTheWay) assertNoLink(lease.home, folder);
      if (!lstatSync(folder, { throwIfNoEntry: false })) throw new OutpostError("session", `No ${profile.format} session ${id}.`);
      const files = walkSession(folder, profile, limits, flaws);
      const missing = profile.required.filter((path) => !files.some((file) => file.path === path));
      if (missing.length > 0) throw new OutpostError("session", `The session ${id} is incomplete: ${missing.join(", ")} missing.`);
      const file = join(directory(context.repository, context.home), `${id}.json`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ origin: { workspace: lease.root, home: lease.home }, files }));
      return { id, file, format: profile.format };
    },
    async restore(record, context) {
      const lease = context.sandbox;
      const target = destination(record.id, lease);
      const bundle = JSON.parse(readFileSync(record.file, "utf8")) as {
        origin: { workspace: string; home: string };
        files: { path: string; data: string }[];
      };
      if (!flaws.restoresThroughLinks) assertNoLink(lease.home, dirname(target));
      rmSync(target, { recursive: true, force: true });
      for (const file of bundle.files) {
        const name = flaws.stripsLeadingDashes ? file.path.replace(/(^|\/)-+/g, "$1") : file.path;
        const path = join(target, name);
        if (!path.startsWith(`${target}${sep}`)) throw new OutpostError("session", `${file.path} leaves the session folder.`);
        let bytes = Buffer.from(file.data, "base64");
        if (!flaws.keepsStalePaths && (profile.relocated ?? []).some((entry) => file.path === entry || file.path.startsWith(`${entry}/`)))
          bytes = Buffer.from(
            bytes.toString("utf8").split(bundle.origin.workspace).join(lease.root).split(bundle.origin.home).join(lease.home),
          );
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, bytes);
      }
    },
  };
}
