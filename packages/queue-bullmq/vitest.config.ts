import { outpostProject } from "../../vitest.shared.js";

// The fleet tests start worker processes and a real redis-server: give them room on a loaded machine.
export default outpostProject("queue-bullmq", { testTimeout: 120_000, hookTimeout: 120_000 });
