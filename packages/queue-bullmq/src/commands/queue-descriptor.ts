import { DESCRIPTOR_SPECIFICATION_VERSION, type QueueDescriptor } from "@outpost/core";
import { queueStatusCommand, queueWatchCommand } from "./queue-commands.js";
import { workerCommand } from "./worker-command.js";

/** How hosts (the outpost CLI) find this queue's commands: `outpost worker`, `outpost queue status|watch`. */
export const descriptor: QueueDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "queue",
  name: "bullmq",
  description: "dispatches queued on BullMQ and Redis, run by workers on any number of machines",
  commands: [workerCommand, queueStatusCommand, queueWatchCommand],
};
