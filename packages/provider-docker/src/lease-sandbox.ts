import type Docker from "dockerode";
import type { StandbyExec } from "./standby-exec.js";

/** What the lease's parts (commands, transfers) share about the running container. */
export interface LeaseSandbox {
  readonly container: Docker.Container;
  /** The exec started ahead of time for the next command (standby-exec.ts). */
  readonly standby?: StandbyExec;
  readonly root: string;
  readonly home: string;
  readonly uid: number;
  readonly gid: number;
  /** Throws `provider` once the lease was released. */
  assertUsable(what: string): void;
}
