/** What is known about a live sandbox, so a crashed or failed dispatch can be found and cleaned up. */
export interface ActivityRecord {
  readonly dispatchId: string;
  readonly label?: string;
  readonly agent: string;
  readonly provider: string;
  readonly repository: string;
  readonly directory: string;
  readonly branch?: string;
  readonly pid: number;
  readonly startedAt: string;
  /** `running`, or `failed` once a failure is recorded. */
  readonly state: "running" | "failed";
  /** The phase that failed. */
  readonly phase?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

/** Storage key of a dispatch's record, in a transport or under `.outpost/storage`. */
export function activityKey(dispatchId: string): string {
  return `activity/${dispatchId}.json`;
}
