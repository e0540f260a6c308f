import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { OperationGuard } from "@outpost/plugin-utils";
import { outpostFailure as failure, useApiDouble } from "@outpost/testkit/faults";
import type { LeaseSandbox } from "../src/lease-sandbox.js";
import { runInDaytona } from "../src/run-in-daytona.js";

// A finite stdin nobody follows travels while its command starts (run-in-daytona's sendWhole): one streamed
// frame and its two markers beside one synchronous request; one too large for a whole upload starts again as frames.
const fixture = useApiDouble("daytona-streamed-input", startDaytonaDouble);

async function requestsOf(run: () => Promise<unknown>): Promise<string[]> {
  const before = fixture.double.requests.length;
  await run();
  return fixture.double.requests.slice(before).map((request) => request.replace(/\/toolbox\/[^/]+/, "/toolbox/<id>"));
}

describe("daytona provider: a finite stdin sent while its command starts", () => {
  it("is three uploads beside one synchronous request, byte-exact (NUL, multibyte, no final newline)", async () => {
    const lease = await daytonaProvider(fixture.double.credentials).acquire(fixture.context);
    try {
      const stdin = "a\u0000b \u00e9\u4e16\ud83d\ude00 end";
      let result: Awaited<ReturnType<typeof lease.invoke>> | undefined;
      const requests = await requestsOf(async () => {
        result = await lease.invoke({ executable: "sh", arguments: ["-c", "cat; printf '|%s' done"], stdin });
      });
      expect(result).toEqual({ status: 0, stdout: `${stdin}|done`, stderr: "" });
      expect(requests.filter((request) => request.endsWith("/exec"))).toHaveLength(1);
      expect(requests.filter((request) => request.endsWith("/files/bulk-upload"))).toHaveLength(3);
      expect(requests.some((request) => request.startsWith("WS "))).toBe(false);
    } finally {
      await lease.release();
    }
  });

  it("larger than one whole upload (16 MiB), ends that command and streams as frames into a new one", async () => {
    const host = await mkdtemp(join(tmpdir(), "outpost-daytona-streamed-"));
    const lease = await daytonaProvider(fixture.double.credentials).acquire(fixture.context);
    try {
      const content = randomBytes(17 * 1024 * 1024);
      await writeFile(join(host, "large.bin"), content);
      const requests = await requestsOf(() => lease.upload(host, `${lease.root}/large`));
      // The first command ends when the input outgrows a whole upload; the second follows its log stream.
      expect(requests.filter((request) => request.endsWith("/exec")).length).toBeGreaterThanOrEqual(2);
      expect(requests.some((request) => request.startsWith("WS "))).toBe(true);
      const [entry] = await lease.fileTransfers!.manifest(`${lease.root}/large`, ["large.bin"]);
      expect(entry?.sha256).toBe(createHash("sha256").update(content).digest("hex"));
      expect(entry?.size).toBe(content.length);
    } finally {
      await lease.release();
      await rm(host, { recursive: true, force: true });
    }
  }, 60_000);

  it("whose feed fails midway ends its command and fails with workspace, naming the cause; the lease goes on", async () => {
    const lease = await daytonaProvider(fixture.double.credentials).acquire(fixture.context);
    const guard = new OperationGuard({ deadlineMs: 30_000 }, "The feed test");
    try {
      const run = runInDaytona(lease as unknown as LeaseSandbox, {
        argv: ["/bin/sh", "-c", "cat >/dev/null; echo read"],
        directory: lease.root,
        onStdout: () => undefined,
        onStderr: () => undefined,
        guard,
        what: "run the feed test",
        outputAtEnd: true,
        feed: async (stdin) => {
          stdin.write("the first part");
          await new Promise((resolve) => setTimeout(resolve, 100));
          throw new Error("a host file changed while it was packed");
        },
      });
      const error = await failure(run);
      expect(error.code).toBe("workspace");
      expect(error.message).toMatch(/a host file changed while it was packed/);
      expect(await lease.invoke({ executable: "sh", arguments: ["-c", "echo still here"] })).toMatchObject({
        status: 0,
        stdout: "still here\n",
      });
    } finally {
      guard.dispose();
      await lease.release();
    }
  });
});
