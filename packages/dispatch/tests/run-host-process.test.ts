import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runHostProcess } from "../src/process/run-host-process.js";

/** True once `pid` has exited: no such process, or a zombie waiting for a parent that does not reap it. */
async function gone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    try {
      process.kill(pid, 0);
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))) return true;
    } catch {
      return true;
    }
    await new Promise((done) => setTimeout(done, 25));
  }
  return false;
}

describe("runHostProcess", () => {
  const directory = mkdtempSync(join(tmpdir(), "outpost-host-process-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("resolves with the real exit status and the output", async () => {
    const result = await runHostProcess({ executable: "sh", arguments: ["-c", "echo out; echo err >&2; exit 7"], directory, what: "test" });
    expect(result).toEqual({ status: 7, stdout: "out\n", stderr: "err\n" });
  });

  it("a deadline ends the whole process group with code timeout", async () => {
    const pidFile = join(directory, "deadline.pid");
    const running = runHostProcess({
      executable: "sh",
      arguments: ["-c", `sleep 30 & echo $! > '${pidFile}'; wait`],
      directory,
      deadlineMs: 300,
      what: "slow",
    });
    await expect(running).rejects.toMatchObject({ code: "timeout" });
    expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });

  it("an abort ends the whole process group with code aborted", async () => {
    const pidFile = join(directory, "abort.pid");
    const controller = new AbortController();
    const running = runHostProcess({
      executable: "sh",
      arguments: ["-c", `sleep 30 & echo $! > '${pidFile}'; wait`],
      directory,
      signal: controller.signal,
      what: "aborted",
    });
    setTimeout(() => controller.abort(new Error("stop")), 200);
    await expect(running).rejects.toMatchObject({ code: "aborted" });
    expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });

  it("a missing executable is code process with advice", async () => {
    await expect(runHostProcess({ executable: "outpost-no-such-binary", directory, what: "missing" })).rejects.toMatchObject({
      code: "process",
      message: expect.stringContaining("on PATH"),
    });
  });
});
