import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentAdapter, SandboxLease, SandboxProvider } from "@outpost/core";
import { dispatch, type DispatchOptions } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { localProvider } from "@outpost/provider-local";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository, scriptAgent } from "../src/index.js";
import { SCRIPT_AGENT_SOURCE } from "@outpost/testkit/script-agent";

// Bootstrap from a SHA-512 pinned archive (the mechanism for CLIs that are not on npm), on Docker isolated.
// The image has node but no `script-agent`: the archive carries it, as a real executable the turn runs.
const gate = dockerGate();
const scratch = mkdtempSync(join(tmpdir(), "outpost-bootstrap-"));
const archive = buildArchive(scratch);
const sha512 = `sha512-${createHash("sha512").update(readFileSync(archive)).digest("base64")}`;
const wrongSha512 = `sha512-${createHash("sha512").update("not the archive").digest("base64")}`;

function buildArchive(directory: string): string {
  const tree = join(directory, "tree");
  mkdirSync(join(tree, "script-agent", "bin"), { recursive: true });
  const executable = join(tree, "script-agent", "bin", "script-agent");
  writeFileSync(executable, `#!/usr/bin/env node\n${SCRIPT_AGENT_SOURCE}`);
  chmodSync(executable, 0o755);
  const file = join(directory, "script-agent.tar.gz");
  execFileSync("tar", ["-czf", file, "-C", tree, "script-agent"]);
  return file;
}

/** The script agent, run as `script-agent` from PATH and bootstrapped under that name. */
function bootstrappedAgent(behaviour: Record<string, string> = {}): AgentAdapter {
  const base = scriptAgent({ directory: join(scratch, "agent"), executable: "node", behaviour });
  return {
    ...base,
    executable: "script-agent",
    bootstrap: "script-agent",
    command(turn) {
      const command = base.command(turn);
      // Drops the script path: the installed executable is the script.
      return { ...command, executable: "script-agent", arguments: command.arguments.slice(1) };
    },
  };
}

interface Watched {
  readonly provider: SandboxProvider;
  readonly acquired: number;
  readonly uploads: string[];
  readonly commands: string[];
  /** What `sh -c <probe>` printed in the sandbox just before it was released. */
  readonly atRelease: string[];
}

/** The real provider, watched: what the engine uploads and runs, and the sandbox's state at release. */
function watched(
  inner: SandboxProvider,
  probe?: string,
  upload?: (lease: SandboxLease, source: string, destination: string) => Promise<void>,
): Watched {
  const seen = { acquired: 0, uploads: [] as string[], commands: [] as string[], atRelease: [] as string[] };
  const provider: SandboxProvider = {
    ...inner,
    acquire: async (context) => {
      seen.acquired += 1;
      const lease = await inner.acquire(context);
      return {
        ...lease,
        specificationVersion: "v1",
        root: lease.root,
        home: lease.home,
        invoke: (command) => {
          seen.commands.push([command.executable, ...(command.arguments ?? [])].join(" "));
          return lease.invoke(command);
        },
        upload: (source, destination, options) => {
          seen.uploads.push(destination);
          return upload ? upload(lease, source, destination) : lease.upload(source, destination, options);
        },
        download: (source, destination, options) => lease.download(source, destination, options),
        release: async () => {
          if (probe) seen.atRelease.push((await lease.invoke({ executable: "sh", arguments: ["-c", probe] })).stdout.trim());
          await lease.release();
        },
      };
    },
  };
  return Object.assign(seen, { provider });
}

const isolated = () => dockerProvider({ image: DOCKER_TEST_IMAGE, mode: "isolated", network: "none", user: { uid: 0, gid: 0 } });
const failure = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error("the dispatch succeeded");
    },
    (caught: unknown) => caught as { code: string; message: string },
  );
const sources = (digest: string) => ({
  "script-agent": { archive: { source: archive, sha512: digest, executable: "script-agent/bin/script-agent" } },
});
const base = (repository: string, provider: SandboxProvider, extra: Partial<DispatchOptions> = {}): DispatchOptions => ({
  agent: bootstrappedAgent({ FILE: "boot.txt", SHELL: "command -v script-agent" }),
  brief: "write boot.txt",
  repository,
  sandboxProvider: provider,
  bootstrap: { sources: sources(sha512) },
  ...extra,
});

describe("bootstrap names and placements (no sandbox needed)", () => {
  it("an unknown bootstrap name fails with configuration before anything is allocated", async () => {
    const repository = scratchRepository();
    const watch = watched(isolated());
    const agent = { ...bootstrappedAgent(), bootstrap: "no-such-agent" };
    const error = await failure(dispatch({ ...base(repository, watch.provider), agent }));
    expect(error.code).toBe("configuration");
    expect(error.message).toContain('unknown bootstrap CLI "no-such-agent"');
    expect(error.message).toContain('"script-agent"');
    expect(watch.acquired).toBe(0);
    // Also without any sources: the agent's name is not a built-in one.
    const bare = await failure(dispatch({ ...base(repository, watch.provider), bootstrap: true }));
    expect(bare.code).toBe("configuration");
    expect(watch.acquired).toBe(0);
  });

  it("a malformed digest, executable or registry fails with configuration before allocation", async () => {
    const repository = scratchRepository();
    const watch = watched(isolated());
    const cases: DispatchOptions["bootstrap"][] = [
      { sources: sources("sha512-short") },
      { sources: { "script-agent": { archive: { source: archive, sha512, executable: "../script-agent" } } } },
      { sources: { "script-agent": { archive: { source: archive, sha512, executable: "script-agent/bin/other" } } } },
      { registry: "file:///etc" },
    ];
    for (const bootstrap of cases)
      expect((await failure(dispatch(base(repository, watch.provider, { bootstrap })))).code).toBe("configuration");
    expect(watch.acquired).toBe(0);
  });

  it("a host provider installs nothing, even when the CLI is missing: the turn fails as a missing executable", async () => {
    const repository = scratchRepository();
    const diagnostics: string[] = [];
    const error = await failure(
      dispatch({
        ...base(repository, localProvider({ home: "private" }), { diagnostic: (message) => diagnostics.push(message) }),
        branch: { mode: "named", name: "boot" },
      }),
    );
    expect(error.code).toBe("process");
    expect(diagnostics.filter((message) => message.startsWith("bootstrap:"))).toEqual([]);
  });
});

(gate.unavailable ? describe.skip : describe)(
  `bootstrap from a pinned archive on Docker isolated${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("installs the missing CLI from the verified archive, then the turn runs it and its commit integrates", async () => {
      const repository = scratchRepository();
      const diagnostics: string[] = [];
      const seen: string[] = [];
      const result = await dispatch({
        ...base(repository, isolated()),
        diagnostic: (message) => diagnostics.push(message),
        observe: ({ event }) => {
          if (event.type === "text") seen.push(event.text);
        },
      });
      expect(result.completed).toBe(true);
      expect(result.commits).toHaveLength(1);
      expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("script agent: boot.txt");
      const hex = Buffer.from(sha512.slice("sha512-".length), "base64").toString("hex");
      // The executable the turn ran is the extracted one, found first on PATH.
      expect(seen.join("\n")).toContain(`/.outpost/cli/script-agent-${hex.slice(0, 12)}/script-agent/bin/script-agent`);
      expect(
        diagnostics.some((message) => message.startsWith("bootstrap: installed the archive") && message.includes("for script-agent")),
      ).toBe(true);
    }, 120_000);

    it("a wrong SHA-512 is refused (configuration): nothing is uploaded, nothing extracted", async () => {
      const repository = scratchRepository();
      const watch = watched(isolated(), 'ls -A "$HOME/.outpost/cli" 2>/dev/null; echo end');
      const error = await failure(dispatch(base(repository, watch.provider, { bootstrap: { sources: sources(wrongSha512) } })));
      expect(error.code).toBe("configuration");
      expect(error.message).toContain("refused and nothing was installed");
      expect(watch.uploads.filter((destination) => destination.includes("/cli/"))).toEqual([]);
      expect(watch.commands.some((command) => command.includes("tar -x"))).toBe(false);
      expect(watch.atRelease).toEqual(["end"]);
    }, 120_000);

    it("an archive altered on its way into the sandbox is refused there (provider) and nothing is left installed", async () => {
      const repository = scratchRepository();
      const tampered = join(scratch, "tampered.tar.gz");
      writeFileSync(tampered, Buffer.concat([readFileSync(archive), Buffer.from("tail")]));
      const watch = watched(isolated(), 'ls -A "$HOME/.outpost/cli" 2>/dev/null; echo end', (lease, source, destination) =>
        lease.upload(destination.includes("/cli/") ? tampered : source, destination),
      );
      const error = await failure(dispatch(base(repository, watch.provider)));
      expect(error.code).toBe("provider");
      expect(error.message).toContain("changed on its way into the sandbox");
      expect(watch.atRelease).toEqual(["end"]);
    }, 120_000);

    it.each([
      ["the install parent", 'mkdir -p "$HOME/.outpost" && ln -s /tmp/elsewhere "$HOME/.outpost/cli"'],
      ["the install directory itself", `mkdir -p "$HOME/.outpost/cli" && ln -s /tmp/elsewhere "$HOME/.outpost/cli/script-agent-LEAF"`],
    ])(
      "a link planted by the sandbox at %s is refused: nothing is written through it",
      async (_where, plant) => {
        const repository = scratchRepository();
        const hex = Buffer.from(sha512.slice("sha512-".length), "base64").toString("hex");
        const watch = watched(isolated(), "ls -A /tmp/elsewhere; echo end");
        const error = await failure(
          dispatch(
            base(repository, watch.provider, {
              hooks: { sandboxReady: [`mkdir -p /tmp/elsewhere && ${plant.replace("LEAF", hex.slice(0, 12))}`] },
            }),
          ),
        );
        expect(error.code).toBe("provider");
        expect(error.message).toContain("is a symbolic link");
        expect(watch.atRelease).toEqual(["end"]);
      },
      120_000,
    );

    it("a mounted Docker sandbox installs nothing, even when the CLI is missing", async () => {
      const repository = scratchRepository();
      const diagnostics: string[] = [];
      const watch = watched(
        dockerProvider({ image: DOCKER_TEST_IMAGE, network: "none", user: { uid: 0, gid: 0 } }),
        'ls -A "$HOME/.outpost/cli" 2>/dev/null; echo end',
      );
      const error = await failure(
        dispatch({
          ...base(repository, watch.provider, { diagnostic: (message) => diagnostics.push(message) }),
          branch: { mode: "named", name: "boot" },
        }),
      );
      expect(error.code).toBe("process");
      expect(diagnostics.filter((message) => message.startsWith("bootstrap:"))).toEqual([]);
      expect(watch.uploads.filter((destination) => destination.includes("/.outpost/cli"))).toEqual([]);
      expect(watch.atRelease).toEqual(["end"]);
    }, 120_000);

    it("bootstrap: false with the CLI missing fails before the turn, saying how to fix it", async () => {
      const repository = scratchRepository();
      // Like a built-in agent: it carries its pinned CLI, so its bootstrap name is known.
      const agent = { ...bootstrappedAgent(), cli: { npmPackage: "script-agent", version: "1.0.0" } };
      const error = await failure(dispatch(base(repository, isolated(), { agent, bootstrap: false })));
      expect(error.code).toBe("configuration");
      expect(error.message).toContain("script-agent is not installed in the docker-isolated sandbox and bootstrap is false");
      expect(error.message).toContain("Put script-agent@1.0.0 in the image");
      expect(error.message).toContain("drop bootstrap: false");
    }, 120_000);
  },
);
