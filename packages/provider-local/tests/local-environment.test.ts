import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError, type SandboxLease } from "@outpost/core";
import { INHERITED_VARIABLES, localProvider } from "@outpost/provider-local";

// Variables a developer's shell typically holds and an agent must never see by default.
const SECRETS: Readonly<Record<string, string>> = {
  OUTPOST_TEST_SECRET: "marker-7f3a1c",
  AWS_SECRET_ACCESS_KEY: "aws-marker-7f3a1c",
  GITHUB_TOKEN: "ghp_marker7f3a1c",
  ANTHROPIC_API_KEY: "sk-ant-marker-7f3a1c",
  NPM_TOKEN: "npm-marker-7f3a1c",
  SSH_AUTH_SOCK: "/tmp/ssh-marker-7f3a1c/agent.1",
  XDG_CONFIG_HOME: "/home/someone/.config-marker-7f3a1c",
};
// What a CLI needs to run, which the allow-list keeps.
const NEEDED: Readonly<Record<string, string>> = {
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  TERM: "xterm-256color",
  TZ: "UTC",
  HTTPS_PROXY: "http://proxy.example:3128",
  https_proxy: "http://proxy.example:3128",
  NO_PROXY: "localhost",
};

let workspace: string;
const leases: SandboxLease[] = [];
const saved = new Map<string, string | undefined>();

function setHostVariables(variables: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(variables)) {
    if (!saved.has(name)) saved.set(name, process.env[name]);
    process.env[name] = value;
  }
}

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "outpost-local-env-"));
  setHostVariables({ ...SECRETS, ...NEEDED });
});

afterEach(async () => {
  await Promise.all(leases.splice(0).map((lease) => lease.release()));
  await rm(workspace, { recursive: true, force: true });
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  saved.clear();
});

async function environmentSeen(config: Parameters<typeof localProvider>[0] = {}): Promise<Map<string, string>> {
  const lease = await localProvider({ home: "private", ...config }).acquire({
    repository: workspace,
    directory: workspace,
    gitDirectories: [],
    variables: { FROM_CONTEXT: "context" },
  });
  leases.push(lease);
  // A grandchild prints its environment: what the agent's own tools would see.
  const result = await lease.invoke({ executable: "sh", arguments: ["-c", "sh -c 'env -0'"], variables: { FROM_COMMAND: "command" } });
  expect(result.status, result.stderr).toBe(0);
  return new Map(
    result.stdout
      .split("\0")
      .filter(Boolean)
      .map((entry) => {
        const at = entry.indexOf("=");
        return [entry.slice(0, at), entry.slice(at + 1)] as [string, string];
      }),
  );
}

describe("localProvider environment", () => {
  it("passes only the allow-list of the invoking environment by default, with declared variables", async () => {
    const seen = await environmentSeen({ variables: { FROM_PROVIDER: "provider" } });
    for (const name of Object.keys(SECRETS)) expect(seen.has(name), name).toBe(false);
    expect([...seen.values()].join("\n")).not.toContain("marker-7f3a1c");
    for (const [name, value] of Object.entries(NEEDED)) expect(seen.get(name), name).toBe(value);
    expect(seen.get("PATH")).toBe(process.env.PATH);
    expect(seen.get("FROM_PROVIDER")).toBe("provider");
    expect(seen.get("FROM_CONTEXT")).toBe("context");
    expect(seen.get("FROM_COMMAND")).toBe("command");
    for (const name of seen.keys()) {
      // OUTPOST_LEASE_MARK: the lease's own random mark, how release() finds processes that left their group.
      const declared = ["HOME", "FROM_PROVIDER", "FROM_CONTEXT", "FROM_COMMAND", "OUTPOST_LEASE_MARK"].includes(name);
      // sh itself sets PWD, SHLVL and `_`.
      const shell = ["PWD", "OLDPWD", "SHLVL", "_"].includes(name);
      const allowed = INHERITED_VARIABLES.some((pattern) =>
        pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
      );
      expect(declared || shell || allowed, `${name} reached the agent`).toBe(true);
    }
  });

  it("passes the names and prefixes listed in environment.allow", async () => {
    setHostVariables({ MY_TOOL_HOME: "/opt/tool", MY_TOOL_MODE: "fast", EXACT_NAME: "yes", EXACT_NAME_NOT: "no" });
    const seen = await environmentSeen({ environment: { allow: ["MY_TOOL_*", "EXACT_NAME"] } });
    expect(seen.get("MY_TOOL_HOME")).toBe("/opt/tool");
    expect(seen.get("MY_TOOL_MODE")).toBe("fast");
    expect(seen.get("EXACT_NAME")).toBe("yes");
    expect(seen.has("EXACT_NAME_NOT")).toBe(false);
    expect(seen.has("OUTPOST_TEST_SECRET")).toBe(false);
  });

  it('passes the whole environment only with environment.inherit "all"', async () => {
    const seen = await environmentSeen({ environment: { inherit: "all" } });
    for (const [name, value] of Object.entries(SECRETS)) expect(seen.get(name), name).toBe(value);
  });

  it("the lease's HOME wins over the invoking HOME in every mode", async () => {
    setHostVariables({ HOME: "/home/someone-marker" });
    for (const inherit of ["allow-list", "all"] as const) {
      const seen = await environmentSeen({ environment: { inherit } });
      expect(seen.get("HOME")).toBe(leases[leases.length - 1]!.home);
    }
  });

  it.each([[{ inherit: "everything" }], [{ allow: [""] }], [{ allow: ["A=B"] }], [{ allow: ["*_TOKEN"] }], [{ allow: [42] }]])(
    "refuses environment %j with code configuration when the provider is created",
    (environment) => {
      let error: unknown;
      try {
        localProvider({ environment: environment as never });
      } catch (caught) {
        error = caught;
      }
      expect(isOutpostError(error) && error.code).toBe("configuration");
    },
  );
});
