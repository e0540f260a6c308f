import type { ActivityLog } from "../activity/activity-log.js";
import type { Redactor } from "./redactor.js";

/** An activity log whose records (the error's message, a label, a path) pass through the redactor first. */
export function redactedActivity(log: ActivityLog, redactor: Redactor): ActivityLog {
  return {
    start: (record) => log.start(redactor.value(record)),
    update: (change) => log.update(redactor.value(change)),
    fail: (phase, error) => log.fail(phase, redactor.value(error)),
    remove: () => log.remove(),
  };
}
