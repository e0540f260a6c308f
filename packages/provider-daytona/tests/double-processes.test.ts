import { describe, expect, it } from "vitest";
import { markedProcesses } from "@outpost/plugin-utils";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/provider-daytona/double";
import { useApiDouble } from "@outpost/testkit/faults";

// The double runs real processes on this machine: deleting a sandbox must leave none behind, as the platform's VM would.
const fixture = useApiDouble("daytona-double-processes", startDaytonaDouble);

describe.runIf(process.platform === "linux")("daytona double: a deleted sandbox leaves no process", () => {
  it("kills what its commands left running, a new session (setsid) included", async () => {
    const lease = await daytonaProvider(fixture.double.credentials).acquire(fixture.context);
    let mark = { name: "DAYTONA_SANDBOX_ID", value: "" };
    try {
      const started = await lease.invoke({
        executable: "sh",
        arguments: [
          "-c",
          `(sleep 300 </dev/null >/dev/null 2>&1 &) ; setsid sh -c 'sleep 300' </dev/null >/dev/null 2>&1 & echo "$DAYTONA_SANDBOX_ID"`,
        ],
      });
      // The mark the double gives every process of the sandbox, as the command saw it.
      mark = { ...mark, value: started.stdout.trim() };
      expect(mark.value).not.toBe("");
      expect(markedProcesses(mark).length).toBeGreaterThan(0);
    } finally {
      await lease.release();
    }
    expect(markedProcesses(mark)).toEqual([]);
  });
});
