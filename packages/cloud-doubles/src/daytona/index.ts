export { startDaytonaDouble } from "./daytona-double.js";
export type { DaytonaDouble, DaytonaDoubleOptions } from "./daytona-double.js";
export type { DaytonaFault } from "./daytona-double.js";
export type { StreamDrops } from "./double-logs.js";
export { daemonArgv } from "./daemon-command-line.js";
