import { describe, expect, it } from "vitest";
import { markedProcesses } from "@outpost/plugin-utils";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble } from "@outpost/cloud-doubles/vercel";
import { processesLeftAfterRelease, useApiDouble } from "@outpost/testkit/faults";

// The double runs real processes on this machine: deleting a sandbox must leave none behind, as the platform's VM would.
const fixture = useApiDouble("vercel-double-processes", startVercelDouble);

describe.runIf(process.platform === "linux")("vercel double: a deleted sandbox leaves no process", () => {
  it("kills what its commands left running, a new session (setsid) included", async () => {
    const { before, after } = await processesLeftAfterRelease(
      vercelProvider({ ...fixture.double.credentials, fetch: fixture.double.fetch }),
      fixture.context,
      "OUTPOST_VERCEL_DOUBLE_SESSION",
      (name, value) => markedProcesses({ name, value }),
    );
    expect(before.length).toBeGreaterThan(0);
    expect(after).toEqual([]);
  });
});
