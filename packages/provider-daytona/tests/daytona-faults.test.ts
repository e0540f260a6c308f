import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isOutpostError, type OutpostError, type SandboxContext } from "@outpost/core";
import { type DaytonaLease, daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble, type DaytonaDouble } from "@outpost/provider-daytona/double";

// Each fault the double can inject must reach the caller as an OutpostError that keeps the SDK error and says what to do.
let double: DaytonaDouble;
let host: string;
let context: SandboxContext;

beforeAll(async () => {
  double = await startDaytonaDouble();
  host = await mkdtemp(join(tmpdir(), "outpost-daytona-faults-"));
  await mkdir(join(host, "worktree"));
  await writeFile(join(host, "worktree", "README"), "hello\n");
  context = { repository: join(host, "worktree"), directory: join(host, "worktree"), gitDirectories: [], variables: {} };
});

afterAll(async () => {
  await double?.close();
  if (host) await rm(host, { recursive: true, force: true });
});

async function failure(operation: Promise<unknown>): Promise<OutpostError> {
  const error = await operation.then(
    () => expect.fail("the operation succeeded"),
    (caught: unknown) => caught,
  );
  expect(isOutpostError(error), String(error)).toBe(true);
  return error as OutpostError;
}

describe("daytona provider: API faults against the double", () => {
  it("a wrong API key (401) is a configuration error naming DAYTONA_API_KEY, with status, request id and cause, never the key", async () => {
    const before = double.sandboxes().length;
    const error = await failure(daytonaProvider({ ...double.credentials, apiKey: "dtn_wrong_key_value" }).acquire(context));
    expect(error.code).toBe("configuration");
    expect(error.message).toMatch(/DAYTONA_API_KEY/);
    expect(error.message).not.toContain("dtn_wrong_key_value");
    expect(error.details).toMatchObject({ status: 401, requestId: expect.stringMatching(/^req_double_/) });
    expect((error.cause as Error).constructor.name).toMatch(/^Daytona/);
    expect(double.sandboxes().length).toBe(before);
  });

  it("429 with Retry-After is a quota error carrying the wait", async () => {
    double.fault({ status: 429, retryAfter: 42, match: "POST /api/sandbox" });
    const error = await failure(daytonaProvider(double.credentials).acquire(context));
    expect(error.code).toBe("quota");
    expect(error.message).toMatch(/Retry after 42 s/);
    expect(error.details).toMatchObject({ status: 429, retryAfterSeconds: 42 });
  });

  it("5xx from the API or the toolbox is a provider error marked unavailable; a failed acquire leaves no sandbox", async () => {
    for (const [status, match] of [
      [503, "POST /api/sandbox"],
      [500, "/process/session"],
    ] as const) {
      const before = double.sandboxes().length;
      double.fault({ status, match });
      const error = await failure(daytonaProvider(double.credentials).acquire(context));
      expect(error.code, match).toBe("provider");
      expect(error.details, match).toMatchObject({ status, unavailable: true });
      expect(double.sandboxes().length, match).toBe(before);
    }
  });

  it("a sandbox that disappears mid-command ends the command with a provider error saying it is gone", async () => {
    const lease = (await daytonaProvider(double.credentials).acquire(context)) as DaytonaLease;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const command = lease.invoke({
      executable: "/bin/sh",
      arguments: ["-c", "echo started; sleep 60"],
      observe: (_channel, text) => text.includes("started") && started(),
    });
    // Handled from the start: the command may fail while the double is still removing the sandbox.
    const failed = failure(command);
    await running;
    await double.vanish(lease.sandboxId);
    const error = await failed;
    expect(error.code).toBe("provider");
    expect(error.details).toMatchObject({ gone: true, status: 404 });
    expect(error.message).toMatch(/Acquire a new lease/);
    await lease.release();
  }, 60_000);

  it("a slow create cut short by the context signal is an aborted error, and the sandbox created meanwhile is deleted", async () => {
    double.slowCreate(1_500);
    try {
      const before = double.sandboxes().length;
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const error = await failure(daytonaProvider(double.credentials).acquire({ ...context, signal: controller.signal }));
      expect(error.code).toBe("aborted");
      expect(double.sandboxes().length).toBe(before);
    } finally {
      double.slowCreate(0);
    }
  }, 60_000);
});
