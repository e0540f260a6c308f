import { describe, expect, it } from "vitest";
import { type VercelLease, vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble } from "@outpost/cloud-doubles/vercel";
import { failureWhenSandboxVanishes, outpostFailure as failure, useApiDouble } from "@outpost/testkit/faults";

// Each fault the double can inject must reach the caller as an OutpostError that keeps the SDK error and says what to do.
const fixture = useApiDouble("vercel-faults", startVercelDouble);

function provider(overrides: { token?: string } = {}) {
  return vercelProvider({ ...fixture.double.credentials, fetch: fixture.double.fetch, ...overrides });
}

const REQUEST_ID = expect.stringMatching(/^double1::/);

describe("vercel provider: API faults against the double", () => {
  it("a wrong token (401) is a configuration error naming VERCEL_TOKEN, with status, request id and cause, never the token", async () => {
    const before = fixture.double.sandboxes().length;
    const error = await failure(provider({ token: "vercel_wrong_token_value" }).acquire(fixture.context));
    expect(error.code).toBe("configuration");
    expect(error.message).toMatch(/VERCEL_TOKEN/);
    expect(error.message).not.toContain("vercel_wrong_token_value");
    expect(JSON.stringify(error.details)).not.toContain("vercel_wrong_token_value");
    expect(error.details).toMatchObject({ status: 401, requestId: REQUEST_ID });
    expect((error.cause as object).constructor.name).toBe("APIError");
    expect(fixture.double.sandboxes().length).toBe(before);
  });

  it("429 with Retry-After is a quota error carrying the wait (the SDK does not retry a wait over 20 s)", async () => {
    fixture.double.fault({ status: 429, retryAfter: 42, match: /^POST \/v[23]\/sandboxes$/ });
    const error = await failure(provider().acquire(fixture.context));
    expect(error.code).toBe("quota");
    expect(error.message).toMatch(/Retry after 42 s/);
    expect(error.details).toMatchObject({ status: 429, retryAfterSeconds: 42, requestId: REQUEST_ID });
    expect(error.cause).toBeDefined();
  }, 60_000);

  it("5xx that outlasts the SDK's retries is a provider error marked unavailable; a failed acquire leaves no sandbox", async () => {
    for (const [status, match] of [
      [503, /^POST \/v[23]\/sandboxes$/],
      [500, /\/fs\/write$/],
    ] as const) {
      const before = fixture.double.sandboxes().length;
      fixture.double.fault({ status, match, times: 3 });
      const error = await failure(provider().acquire(fixture.context));
      expect(error.code, String(match)).toBe("provider");
      expect(error.details, String(match)).toMatchObject({ status, unavailable: true, requestId: REQUEST_ID });
      expect(error.message, String(match)).toMatch(/Retry later/);
      expect(fixture.double.sandboxes().length, String(match)).toBe(before);
    }
  }, 60_000);

  it("a sandbox that disappears mid-command ends the command with a provider error saying it is gone", async () => {
    const lease = (await provider().acquire(fixture.context)) as VercelLease;
    const error = await failureWhenSandboxVanishes(lease, () => fixture.double.vanish(lease.sandboxName));
    expect(error.code).toBe("provider");
    // The log stream's error line has no HTTP status: the server's code and the session name it instead.
    expect(error.details).toMatchObject({ gone: true, serverCode: "sandbox_stopped", sessionId: expect.any(String) });
    expect(error.message).toMatch(/Acquire a new lease/);
    expect(error.cause).toBeDefined();
    // The next command meets the gone sandbox through the API: its status and request id are kept.
    const next = await failure(lease.invoke({ executable: "/bin/true" }));
    expect(next.code).toBe("provider");
    expect(next.details).toMatchObject({ gone: true, status: expect.any(Number), requestId: REQUEST_ID });
    await lease.release();
  }, 60_000);

  it("a slow create cut short by the context signal is an aborted error at once, and the sandbox created meanwhile is deleted", async () => {
    fixture.double.slowCreate(1_500);
    try {
      const before = fixture.double.sandboxes().length;
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("the caller gave up")), 300);
      const error = await failure(provider().acquire({ ...fixture.context, signal: controller.signal }));
      expect(error.code).toBe("aborted");
      expect(error.message).toMatch(/the caller gave up/);
      // The create finishes on the platform's side after the abort; the provider deletes what it made.
      const deleted = () => fixture.double.requests.filter((request) => request.startsWith("DELETE /v2/sandboxes/")).length;
      const deletesBefore = deleted();
      for (let waited = 0; deleted() === deletesBefore && waited < 30_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(deleted()).toBe(deletesBefore + 1);
      for (let waited = 0; fixture.double.sandboxes().length > before && waited < 10_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(fixture.double.sandboxes().length).toBe(before);
    } finally {
      fixture.double.slowCreate(0);
    }
  }, 60_000);
});
