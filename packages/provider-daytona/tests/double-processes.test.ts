import { describe, expect, it } from "vitest";
import { markedProcesses } from "@outpost/plugin-utils";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { processesLeftAfterRelease, useApiDouble } from "@outpost/testkit/faults";

// The double runs real processes on this machine: deleting a sandbox must leave none behind, as the platform's VM would.
const fixture = useApiDouble("daytona-double-processes", startDaytonaDouble);

describe.runIf(process.platform === "linux")("daytona double: a deleted sandbox leaves no process", () => {
  it("kills what its commands left running, a new session (setsid) included", async () => {
    const { before, after } = await processesLeftAfterRelease(
      daytonaProvider(fixture.double.credentials),
      fixture.context,
      "DAYTONA_SANDBOX_ID",
      (name, value) => markedProcesses({ name, value }),
    );
    expect(before.length).toBeGreaterThan(0);
    expect(after).toEqual([]);
  });
});
