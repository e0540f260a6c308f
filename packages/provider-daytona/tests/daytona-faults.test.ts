import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Daytona } from "@daytonaio/sdk";
import { describe, expect, it } from "vitest";
import { type DaytonaLease, daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { failureWhenSandboxVanishes, outpostFailure as failure, useApiDouble } from "@outpost/testkit/faults";

// Each fault the double can inject must reach the caller as an OutpostError that keeps the SDK error and says what to do.
const fixture = useApiDouble("daytona-faults", startDaytonaDouble);

describe("daytona provider: API faults against the double", () => {
  it("a wrong API key (401) is a configuration error naming DAYTONA_API_KEY, with status, request id and cause, never the key", async () => {
    const before = fixture.double.sandboxes().length;
    const error = await failure(daytonaProvider({ ...fixture.double.credentials, apiKey: "dtn_wrong_key_value" }).acquire(fixture.context));
    expect(error.code).toBe("configuration");
    expect(error.message).toMatch(/DAYTONA_API_KEY/);
    expect(error.message).not.toContain("dtn_wrong_key_value");
    expect(error.details).toMatchObject({ status: 401, requestId: expect.stringMatching(/^req_double_/) });
    expect((error.cause as Error).constructor.name).toMatch(/^Daytona/);
    expect(fixture.double.sandboxes().length).toBe(before);
  });

  it("429 with Retry-After is a quota error carrying the wait", async () => {
    fixture.double.fault({ status: 429, retryAfter: 42, match: "POST /api/sandbox" });
    const error = await failure(daytonaProvider(fixture.double.credentials).acquire(fixture.context));
    expect(error.code).toBe("quota");
    expect(error.message).toMatch(/Retry after 42 s/);
    expect(error.details).toMatchObject({ status: 429, retryAfterSeconds: 42 });
  });

  it("5xx from the API or the toolbox is a provider error marked unavailable; a failed acquire leaves no sandbox", async () => {
    for (const [status, match] of [
      [503, "POST /api/sandbox"],
      [500, "/process/session"],
    ] as const) {
      const before = fixture.double.sandboxes().length;
      fixture.double.fault({ status, match, times: 4 });
      const error = await failure(daytonaProvider(fixture.double.credentials).acquire(fixture.context));
      expect(error.code, match).toBe("provider");
      expect(error.details, match).toMatchObject({ status, unavailable: true, attempts: 4 });
      expect(error.message, match).toMatch(/\(4 tries, with backoff\)/);
      expect(fixture.double.sandboxes().length, match).toBe(before);
    }
  });

  it("a single 5xx or 429 on create or on the toolbox is retried with backoff: the lease comes", async () => {
    for (const [status, match] of [
      [503, "POST /api/sandbox"],
      [429, "POST /api/sandbox"],
      [502, "/process/session"],
    ] as const) {
      fixture.double.fault({ status, match, ...(status === 429 ? { retryAfter: 1 } : {}) });
      const lease = await daytonaProvider(fixture.double.credentials).acquire(fixture.context);
      await lease.release();
    }
  }, 60_000);

  it("release() tries a failed delete again (5xx), and a sandbox already gone (404) releases quietly", async () => {
    const lease = (await daytonaProvider(fixture.double.credentials).acquire(fixture.context)) as DaytonaLease;
    fixture.double.fault({ status: 503, match: "DELETE /api/sandbox", times: 2 });
    await lease.release();
    expect(fixture.double.sandboxes()).not.toContain(lease.sandboxId);
    const gone = (await daytonaProvider(fixture.double.credentials).acquire(fixture.context)) as DaytonaLease;
    await fixture.double.vanish(gone.sandboxId);
    await gone.release();
  }, 60_000);

  it("a sandbox that disappears mid-command ends the command with a provider error saying it is gone", async () => {
    const lease = (await daytonaProvider(fixture.double.credentials).acquire(fixture.context)) as DaytonaLease;
    const error = await failureWhenSandboxVanishes(lease, () => fixture.double.vanish(lease.sandboxId));
    expect(error.code).toBe("provider");
    expect(error.details).toMatchObject({ gone: true, status: 404 });
    expect(error.message).toMatch(/Acquire a new lease/);
    await lease.release();
  }, 60_000);

  it("a slow create cut short by the context signal is an aborted error, and the sandbox created meanwhile is deleted", async () => {
    fixture.double.slowCreate(1_500);
    try {
      const before = fixture.double.sandboxes().length;
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const error = await failure(daytonaProvider(fixture.double.credentials).acquire({ ...fixture.context, signal: controller.signal }));
      expect(error.code).toBe("aborted");
      expect(fixture.double.sandboxes().length).toBe(before);
    } finally {
      fixture.double.slowCreate(0);
    }
  }, 60_000);

  it("a root that cannot be made (a file in its path) is a provider error naming the root, the SDK's 400 kept as cause", async () => {
    const before = fixture.double.sandboxes().length;
    const blocker = join(mkdtempSync(join(tmpdir(), "outpost-daytona-root-")), "a-file");
    writeFileSync(blocker, "not a directory");
    const root = join(blocker, "repository");
    const error = await failure(daytonaProvider({ ...fixture.double.credentials, root }).acquire(fixture.context));
    expect(error.code).toBe("provider");
    expect(error.message).toContain(`creating ${root} failed`);
    expect(error.message).toMatch(/Choose a writable root/);
    expect(error.details).toMatchObject({ root });
    expect((error.cause as { statusCode?: number }).statusCode).toBe(400);
    expect(fixture.double.sandboxes().length).toBe(before);
  });

  it("the double's folder route is the daemon's MkdirAll: parents made with the mode, a bad mode or path refused with 400", async () => {
    const daytona = new Daytona({ ...fixture.double.credentials, useDeprecatedPolling: true });
    const sandbox = await daytona.create();
    try {
      const base = mkdtempSync(join(tmpdir(), "outpost-daytona-folder-"));
      await sandbox.fs.createFolder(join(base, "a/b/c"), "700");
      for (const made of ["a", "a/b", "a/b/c"]) expect(statSync(join(base, made)).mode & 0o777, made).toBe(0o700);
      await sandbox.fs.createFolder(join(base, "a/b/c"), "755");
      expect(statSync(join(base, "a/b/c")).mode & 0o777).toBe(0o700);
      await expect(sandbox.fs.createFolder(join(base, "d"), "9z")).rejects.toMatchObject({ statusCode: 400 });
      writeFileSync(join(base, "file"), "");
      await expect(sandbox.fs.createFolder(join(base, "file/sub"), "755")).rejects.toMatchObject({ statusCode: 400 });
    } finally {
      await sandbox.delete();
    }
  });
});
