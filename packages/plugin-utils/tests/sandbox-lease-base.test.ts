import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError, OutpostError, type Command, type CommandResult } from "@outpost/core";
import { FileApiChannel, runWrappedCommand, SandboxFileTransfers, SandboxLeaseBase } from "../src/index.js";
import { runOnHost, hostProcessPlatform } from "./support/host-process-platform.js";

let base: string;

/** A lease on a host directory: real processes, real transfer scripts; teardown is scripted per case. */
class HostLease extends SandboxLeaseBase {
  readonly root: string;
  readonly home: string;
  readonly scratch: string;
  readonly channel: FileApiChannel;
  readonly fileTransfers: SandboxFileTransfers;
  destroyed = 0;
  private readonly gone = new AbortController();

  constructor(private readonly teardown: () => Promise<void> = async () => undefined) {
    super({ platform: "Test", details: { sandbox: "test-1" } });
    this.root = join(base, "root");
    this.home = join(base, "home");
    this.scratch = join(base, "scratch");
    this.channel = new FileApiChannel(this, hostProcessPlatform());
    this.fileTransfers = new SandboxFileTransfers(this.channel);
  }

  protected runCommand(command: Command): Promise<CommandResult> {
    return runWrappedCommand(this, command, "Test", (options) =>
      runOnHost(options, this.gone.signal).catch((error: unknown) => {
        throw isOutpostError(error) ? error : new OutpostError("provider", "Could not run: the Test sandbox is gone.", { cause: error });
      }),
    );
  }

  protected async destroy(): Promise<void> {
    this.destroyed++;
    this.gone.abort();
    await this.teardown();
  }

  protected isGone(error: unknown): boolean {
    return (error as { status?: number }).status === 404;
  }

  protected releaseFailure(error: unknown): OutpostError {
    return new OutpostError("provider", "Could not release the test sandbox. Retry the release.", { cause: error });
  }
}

async function failure(operation: Promise<unknown>): Promise<OutpostError> {
  const error = await operation.then(
    () => expect.fail("the operation was accepted"),
    (reason: unknown) => reason,
  );
  expect(isOutpostError(error), String(error)).toBe(true);
  return error as OutpostError;
}

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "outpost-lease-base-"));
  for (const directory of ["root", "home", "scratch", "host"]) await mkdir(join(base, directory));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("SandboxLeaseBase", () => {
  it("runs commands and transfers until release; afterwards nothing new starts (provider error naming the platform)", async () => {
    const lease = new HostLease();
    expect((await lease.invoke({ executable: "/bin/sh", arguments: ["-c", "echo hi"] })).stdout).toBe("hi\n");
    await writeFile(join(base, "host", "f"), "x\n");
    await lease.upload(join(base, "host", "f"), "f");
    expect(await readFile(join(base, "root", "f"), "utf8")).toBe("x\n");
    await lease.release();
    for (const operation of [
      () => lease.invoke({ executable: "/bin/true" }),
      () => lease.upload(join(base, "host", "f"), "g"),
      () => lease.download("f", join(base, "host", "back")),
    ]) {
      const error = await failure(operation());
      expect(error.code).toBe("provider");
      expect(error.message).toMatch(/the Test lease was released meanwhile\. Acquire a new lease\./);
      expect(error.details).toEqual({ sandbox: "test-1" });
    }
  });

  it("an operation that a release cut short reports the release with the platform's error as cause; other codes are kept", async () => {
    const lease = new HostLease();
    const running = failure(lease.invoke({ executable: "/bin/sh", arguments: ["-c", "exec sleep 30"] }));
    const timedOut = failure(lease.invoke({ executable: "/bin/sh", arguments: ["-c", "exec sleep 30"], deadlineMs: 50 }));
    expect((await timedOut).code).toBe("timeout");
    await lease.release();
    const error = await running;
    expect(error.code).toBe("provider");
    expect(error.message).toBe("Could not run the command: the Test lease was released meanwhile. Acquire a new lease.");
    expect((error.cause as OutpostError).message).toBe("Could not run: the Test sandbox is gone.");
    expect(error.details).toEqual({ sandbox: "test-1" });
  });

  it("release tears down once; a sandbox already gone counts as released; another failure lets release be retried", async () => {
    const once = new HostLease();
    const [first, second] = [once.release(), once.release()];
    expect(first).toBe(second);
    await first;
    expect(once.destroyed).toBe(1);

    const gone = new HostLease(() => Promise.reject(Object.assign(new Error("not found"), { status: 404 })));
    await gone.release();

    let attempts = 0;
    const flaky = new HostLease(async () => {
      if (++attempts === 1) throw Object.assign(new Error("HTTP 502"), { status: 502 });
    });
    const error = await failure(flaky.release());
    expect(error.message).toBe("Could not release the test sandbox. Retry the release.");
    expect((error.cause as Error).message).toBe("HTTP 502");
    await flaky.release();
    expect(flaky.destroyed).toBe(2);
  });

  it("names scratch files uniquely within a lease and across leases", () => {
    const [one, two] = [new HostLease(), new HostLease()];
    const names = [one.nextName("in"), one.nextName("in"), two.nextName("in")];
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(/^in-[0-9a-f]{8}-\d+$/);
  });
});
