import type { ConversationRecord, SandboxLease } from "@outpost/core";
import { HOSTILE_SESSION_IDS } from "./hostile-session-ids.js";
import { expectRefused } from "./expect-refused.js";
import { listSandboxTree } from "./sandbox-files.js";
import { withBundleCase, type DescribeSessionBundleProfileOptions } from "./bundle-suite-context.js";

/**
 * Ids that name no single session are refused with OutpostErrors by capture, locate, destination and
 * restore (with a sound bundle file), and restore writes nothing for them.
 */
export async function bundleHostileIds(options: DescribeSessionBundleProfileOptions): Promise<void> {
  const { store } = options;
  await withBundleCase(options, async ({ pair, id }) => {
    const { source, target } = pair;
    const record = await store.capture(id, source.context());
    const before = await filesIn(target.lease);
    for (const hostile of HOSTILE_SESSION_IDS) {
      const shown = JSON.stringify(hostile);
      await expectRefused(`capture(${shown})`, () => store.capture(hostile, source.context()));
      await expectRefused(`locate(${shown})`, () => store.locate(hostile, source.lease.root, source.context().home));
      await expectRefused(`destination(${shown})`, () => store.destination(hostile, target.lease, record.file));
      const renamed: ConversationRecord = { ...record, id: hostile };
      await expectRefused(`restore of a record with id ${shown}`, () => store.restore(renamed, target.context()));
    }
    const written = (await filesIn(target.lease)).filter((path) => !before.includes(path));
    if (written.length > 0) throw new Error(`restoring hostile ids wrote ${written.join(", ")}`);
  });
}

async function filesIn(lease: SandboxLease): Promise<string[]> {
  return (await listSandboxTree(lease, lease.home)).filter((entry) => entry.kind !== "directory").map((entry) => entry.path);
}
