import { rename, writeFile } from "node:fs/promises";
import type { ActivityRecord } from "../activity/activity-record.js";
import { activityFile } from "../activity/activity-log.js";

/** Replaces a dispatch's record file at once (a temporary file renamed over it), as a clean settles it. */
export async function rewriteRecord(root: string, record: ActivityRecord): Promise<void> {
  const path = activityFile(root, record.dispatchId);
  await writeFile(`${path}.clean.tmp`, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(`${path}.clean.tmp`, path);
}
