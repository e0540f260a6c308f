import { hostname } from "node:os";

/** Marks every container this package creates, so `reap()` can find the ones a crashed host left. */
export const LEASE_LABEL = "dev.outpost.lease";
export const OWNER_PID_LABEL = "dev.outpost.owner-pid";
export const OWNER_HOST_LABEL = "dev.outpost.owner-host";
export const RETAIN_LABEL = "dev.outpost.retain";

/** The labels a new lease container carries: the caller's extras first, ours last (they win). */
export function leaseLabels(extra: Readonly<Record<string, string>>, retain: boolean): Record<string, string> {
  return {
    ...extra,
    [LEASE_LABEL]: "1",
    [OWNER_PID_LABEL]: String(process.pid),
    [OWNER_HOST_LABEL]: hostname(),
    ...(retain ? { [RETAIN_LABEL]: "1" } : {}),
  };
}
