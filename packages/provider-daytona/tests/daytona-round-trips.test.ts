import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { outpostFailure as failure, useApiDouble } from "@outpost/testkit/faults";

// How many API requests a command costs: each is a network round trip on the real platform.
const fixture = useApiDouble("daytona-round-trips", startDaytonaDouble);

async function requestsOf(run: () => Promise<unknown>): Promise<string[]> {
  const before = fixture.double.requests.length;
  await run();
  return fixture.double.requests
    .slice(before)
    .map((request) => request.replace(/\/toolbox\/[^/]+/, "/toolbox/<id>").replace(/\/command\/[^/]+/, "/command/<cmd>"));
}

describe("daytona provider: requests per command", () => {
  it("a command nobody follows is one synchronous session request, with stdout, stderr and status apart", async () => {
    const lease = await daytonaProvider(fixture.double.credentials).acquire(fixture.context);
    try {
      let result: Awaited<ReturnType<typeof lease.invoke>> | undefined;
      const requests = await requestsOf(async () => {
        result = await lease.invoke({ executable: "sh", arguments: ["-c", "printf out; printf err >&2; exit 3"] });
      });
      expect(result).toEqual({ status: 3, stdout: "out", stderr: "err" });
      // One request on the command's path. Beside it, sessions open (the next command's) and close (used ones),
      // in the background.
      const sessions = /^(POST \/toolbox\/<id>\/process\/session|DELETE \/toolbox\/<id>\/process\/session\/[^/]+)$/;
      const own = requests.filter((request) => !sessions.test(request));
      expect(own).toHaveLength(1);
      expect(own[0]).toMatch(/^POST \/toolbox\/<id>\/process\/session\/[^/]+\/exec$/);
      const missing = await failure(lease.invoke({ executable: "outpost-no-such-program" }));
      expect(missing.code).toBe("process");
    } finally {
      await lease.release();
    }
  });

  it("a command with a deadline or a signal but no observer is one synchronous request, still ended by its deadline", async () => {
    const lease = await daytonaProvider(fixture.double.credentials).acquire(fixture.context);
    try {
      for (const command of [{ deadlineMs: 60_000 }, { signal: new AbortController().signal }]) {
        const requests = await requestsOf(() => lease.invoke({ executable: "sh", arguments: ["-c", "echo done"], ...command }));
        expect(
          requests.filter((request) => request.endsWith("/exec")),
          JSON.stringify(Object.keys(command)),
        ).toHaveLength(1);
        expect(
          requests.some((request) => request.startsWith("WS ")),
          JSON.stringify(Object.keys(command)),
        ).toBe(false);
      }
      const stopped = lease.invoke({ executable: "sh", arguments: ["-c", "sleep 30"], deadlineMs: 500 });
      await expect(stopped).rejects.toMatchObject({ code: "timeout" });
    } finally {
      await lease.release();
    }
  });

  it("a followed command (observe or live input) streams through the log socket", async () => {
    const lease = await daytonaProvider(fixture.double.credentials).acquire(fixture.context);
    try {
      const seen: string[] = [];
      for (const command of [{ observe: (_channel: string, text: string) => void seen.push(text) }, { input: Readable.from(["fed\n"]) }]) {
        const requests = await requestsOf(() =>
          lease.invoke({ executable: "sh", arguments: ["-c", "cat >/dev/null; echo live"], ...command }),
        );
        expect(
          requests.some((request) => request.startsWith("WS ")),
          JSON.stringify(Object.keys(command)),
        ).toBe(true);
      }
      expect(seen.join("")).toContain("live");
    } finally {
      await lease.release();
    }
  });
});
