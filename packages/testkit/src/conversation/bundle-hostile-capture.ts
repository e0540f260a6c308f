import { posix } from "node:path";
import type { OutpostErrorCode } from "@outpost/core";
import { refusedOrDone } from "./expect-refused.js";
import { changeSandboxFiles, listSandboxTree, type SandboxFileStep } from "./sandbox-files.js";
import {
  OUTSIDE_SECRET,
  cliRoot,
  hostFilesWithSecret,
  type BundleCase,
  type DescribeSessionBundleProfileOptions,
} from "./bundle-suite-context.js";

/** A hostile change to a recorded session folder, made in the source sandbox before capture. */
export interface HostileLayout {
  readonly name: string;
  steps(scene: BundleCase): SandboxFileStep[];
  /** Set when capture must be refused with this code; otherwise a capture that succeeds must be harmless. */
  readonly refusedWith?: OutpostErrorCode;
}

const CAPTURE_DEADLINE_MS = 60_000;

/**
 * For each layout, on the pristine session: capture is refused with an OutpostError, or it succeeds and
 * nothing outside the session reached the host, and restoring it writes no link nor special file.
 */
export async function checkHostileCaptures(
  options: DescribeSessionBundleProfileOptions,
  scene: BundleCase,
  layouts: readonly HostileLayout[],
): Promise<void> {
  const { store } = options;
  const { pair, id } = scene;
  // The whole CLI home is put back before each layout: a layout may turn a folder on the way into a link.
  const home = cliRoot(options.profile, pair.source.lease);
  const pristine = posix.join(pair.source.lease.home, ".outpost-kit-pristine");
  await changeSandboxFiles(pair.source.lease, [{ kind: "copy", from: home, to: pristine }]);
  for (const layout of layouts) {
    await changeSandboxFiles(pair.source.lease, [{ kind: "copy", from: pristine, to: home }, ...layout.steps(scene)]);
    const what = `capture with ${layout.name}`;
    const refusal = await withinDeadline(
      what,
      refusedOrDone(what, () => store.capture(id, pair.source.context())),
    );
    const leaked = await hostFilesWithSecret(pair);
    if (leaked.length > 0) throw new Error(`${what}: text from outside the session reached the host in ${leaked.join(", ")}`);
    if (layout.refusedWith !== undefined) {
      if (!refusal) throw new Error(`${what} succeeded; it must be refused with code ${layout.refusedWith}`);
      if (refusal.code !== layout.refusedWith)
        throw new Error(`${what} was refused with code ${refusal.code}, expected ${layout.refusedWith}: ${refusal.message}`);
    }
    if (refusal) continue;
    const record = await store.locate(id, pair.source.lease.root, pair.source.context().home);
    await store.restore(record, pair.target.context());
    const restored = await listSandboxTree(pair.target.lease, store.destination(id, pair.target.lease, record.file));
    const odd = restored.filter((entry) => entry.kind === "symlink" || entry.kind === "other");
    if (odd.length > 0) throw new Error(`${what}: restore wrote ${odd.map((entry) => `${entry.path} (${entry.kind})`).join(", ")}`);
    const secret = restored.filter((entry) =>
      Buffer.from(entry.data ?? "", "base64")
        .toString("latin1")
        .includes(OUTSIDE_SECRET),
    );
    if (secret.length > 0)
      throw new Error(`${what}: restore wrote text from outside the session in ${secret.map((e) => e.path).join(", ")}`);
  }
}

/** A capture that hangs (reading a fifo, say) fails the check by name instead of timing out the test. */
async function withinDeadline<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${CAPTURE_DEADLINE_MS / 1000} s`)), CAPTURE_DEADLINE_MS);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
