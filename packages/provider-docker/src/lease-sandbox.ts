import type Docker from "dockerode";

/** What the lease's parts (commands, transfers) share about the running container. */
export interface LeaseSandbox {
  readonly container: Docker.Container;
  readonly root: string;
  readonly home: string;
  readonly uid: number;
  readonly gid: number;
  /** Throws `provider` once the lease was released. */
  assertUsable(what: string): void;
}
