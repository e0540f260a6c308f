import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { isOutpostError, type SandboxProvider } from "@outpost/core";
import { scratchRepository, scriptAgent } from "../src/index.js";

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));

function withEnvFile(repository: string, text: string): void {
  mkdirSync(join(repository, ".outpost"), { recursive: true });
  writeFileSync(join(repository, ".outpost", ".env"), text);
}

function watched(provider: SandboxProvider, variables?: Record<string, string>): { provider: SandboxProvider; acquired: () => boolean } {
  let acquired = false;
  return {
    provider: {
      ...provider,
      ...(variables ? { variables } : {}),
      acquire: (context) => {
        acquired = true;
        return provider.acquire(context);
      },
    },
    acquired: () => acquired,
  };
}

describe("agent variables over .outpost/.env", () => {
  it("reads .outpost/.env and layers the agent's variables over it", async () => {
    const repository = scratchRepository();
    withEnvFile(
      repository,
      [
        "# shared settings",
        "FROM_FILE=plain value # comment",
        "export EXPORTED='single # kept'",
        'QUOTED="two\\nlines"',
        "SHARED=from-file",
        "",
      ].join("\n"),
    );
    const agent = {
      ...scriptAgent({ directory: agentDirectory, behaviour: { PRINT_ENVIRONMENT: "1" } }),
      variables: { SHARED: "from-agent" },
    };
    const texts: string[] = [];
    await dispatch({
      agent,
      brief: "x",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      observe: ({ event }) => {
        if (event.type === "text") texts.push(event.text);
      },
    });
    const seen = `${texts.join("\n")}\n`;
    expect(seen).toContain("FROM_FILE=plain value\n");
    expect(seen).toContain("EXPORTED=single # kept\n");
    expect(seen).toContain("QUOTED=two\nlines\n");
    expect(seen).toContain("SHARED=from-agent\n");
    expect(seen).not.toContain("SHARED=from-file");
  });

  it("a name the provider also sets fails with configuration before allocation, from the env file or the agent", async () => {
    for (const [envFile, agentVariables] of [
      ["CLASH=file\n", {}],
      ["", { CLASH: "agent" }],
    ] as const) {
      const repository = scratchRepository();
      withEnvFile(repository, envFile);
      const { provider, acquired } = watched(localProvider({ home: "private" }), { CLASH: "provider" });
      const agent = { ...scriptAgent({ directory: agentDirectory }), variables: agentVariables as Readonly<Record<string, string>> };
      const error = await dispatch({ agent, brief: "x", repository, sandboxProvider: provider }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isOutpostError(error, "configuration")).toBe(true);
      expect((error as Error).message).toContain("CLASH");
      expect(acquired()).toBe(false);
    }
  });

  it("refuses a linked or malformed env file with configuration, so no host file leaks into the agent's environment", async () => {
    const secret = join(mkdtempSync(join(tmpdir(), "outpost-secret-")), "credentials");
    writeFileSync(secret, "AWS_SECRET=hunter2\n");
    const linked = scratchRepository();
    mkdirSync(join(linked, ".outpost"));
    symlinkSync(secret, join(linked, ".outpost", ".env"));
    const malformed = scratchRepository();
    withEnvFile(malformed, "NOT A VARIABLE\n");
    for (const repository of [linked, malformed]) {
      const { provider, acquired } = watched(localProvider({ home: "private" }));
      const error = await dispatch({
        agent: scriptAgent({ directory: agentDirectory }),
        brief: "x",
        repository,
        sandboxProvider: provider,
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isOutpostError(error, "configuration")).toBe(true);
      expect((error as Error).message).toContain(".env");
      expect(acquired()).toBe(false);
    }
  });
});
