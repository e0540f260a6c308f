import { describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { assertDispatchJob, type DispatchJob } from "../src/index.js";

const valid: DispatchJob = {
  brief: "add a file",
  agent: { name: "claude", options: { model: "sonnet", endpoint: { baseUrl: "http://127.0.0.1:1" } } },
  provider: { name: "docker", options: { image: "outpost-test:latest" } },
  repository: { url: "ssh://git@example.test/team/app.git", base: "main", branch: "outpost/fix-1" },
  transport: "results",
  idempotencyKey: "fix-1",
};

function refusal(job: unknown): { field: unknown; message: string } {
  try {
    assertDispatchJob(job);
  } catch (error) {
    if (isOutpostError(error, "configuration")) return { field: error.details.field, message: error.message };
    throw error;
  }
  throw new Error("the job was accepted");
}

describe("dispatch job validation", () => {
  it("accepts plain data naming plugins, a remote and a transport", () => {
    expect(() => assertDispatchJob(valid)).not.toThrow();
    expect(() => assertDispatchJob({ ...valid, brief: { file: "briefs/fix.md", variables: { issue: "1" } } })).not.toThrow();
  });

  it("refuses functions, class instances and values JSON cannot carry, naming the field", () => {
    expect(refusal({ ...valid, agent: { name: "claude", options: { onEvent: () => undefined } } }).field).toBe("agent.options.onEvent");
    expect(refusal({ ...valid, provider: { name: "docker", options: { started: new Date() } } }).field).toBe("provider.options.started");
    expect(refusal({ ...valid, passes: Number.NaN }).field).toBe("passes");
    expect(refusal({ ...valid, agent: { name: "claude", options: { limit: 10n } } }).message).toMatch(/plain data/);
  });

  it("refuses credentials anywhere in plugin options or in the remote URL", () => {
    for (const options of [
      { apiKey: "sk-1" },
      { endpoint: { baseUrl: "http://x", apiKey: "k" } },
      { githubToken: "t" },
      { password: "p" },
    ]) {
      expect(refusal({ ...valid, agent: { name: "claude", options } }).message).toMatch(/never carry credentials/);
    }
    const withToken = refusal({ ...valid, repository: { url: "https://bot:ghp_secret@example.test/app.git" } });
    expect(withToken.field).toBe("repository.url");
    expect(withToken.message).not.toContain("ghp_secret");
  });

  it("refuses unknown fields, bad names and hostile branch names", () => {
    expect(refusal({ ...valid, sandboxProvider: {} }).field).toBe("sandboxProvider");
    expect(refusal({ ...valid, agent: { name: "../evil" } }).field).toBe("agent");
    expect(refusal({ ...valid, repository: { url: "--upload-pack=touch /tmp/x" } }).field).toBe("repository.url");
    for (const branch of ["../x", "a..b", "-f", "x.lock", "a//b", "/abs", "a b", "a~1", "a:b"]) {
      expect(refusal({ ...valid, repository: { url: "/srv/app.git", branch } }).field).toBe("repository.branch");
    }
    expect(refusal({ ...valid, idempotencyKey: "has space" }).field).toBe("idempotencyKey");
    expect(refusal({ ...valid, brief: "  " }).field).toBe("brief");
    expect(refusal({ ...valid, continuation: { id: "x" } }).field).toBe("continuation");
    expect(refusal(null).field).toBe("job");
  });
});
