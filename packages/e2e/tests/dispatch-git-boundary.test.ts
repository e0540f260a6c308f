import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentObservation } from "@outpost/dispatch";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository, scriptAgent } from "../src/index.js";
import { addKeptWorktree, gitControlState, hostileGitScript, userGitCommands } from "./support/git-vectors.js";

const gate = dockerGate();
const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
const provider = () =>
  dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "none",
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
  });

(gate.unavailable ? describe.skip : describe)(
  `the host git boundary on Docker${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    for (const mode of ["integrate", "current"] as const) {
      it(`${mode}: vectors planted from the container never run on the host, in the dispatch or in the user's git afterwards`, async () => {
        const repository = scratchRepository();
        const markers = mkdtempSync(join(tmpdir(), "outpost-markers-"));
        if (mode === "current") addKeptWorktree(repository);
        const before = gitControlState(repository);
        const events: AgentObservation[] = [];
        const agent = scriptAgent({
          directory: agentDirectory,
          executable: "node",
          behaviour: {
            SHELL: hostileGitScript(markers, join(repository, ".git"), repository, { commitAfterPlanting: true, plantCommondir: false }),
            FILE: "agent.txt",
          },
        });
        const result = await dispatch({
          agent,
          brief: "plant everything",
          repository,
          sandboxProvider: provider(),
          branch: { mode },
          observe: (event) => events.push(event),
        });
        const said = events
          .map((observation) => observation.event)
          .filter((event) => event.type === "text")
          .map((event) => (event as { text: string }).text)
          .join("\n");
        // The vectors were armed in the sandbox: its own commit ran the planted pre-commit hook and fsmonitor there.
        expect(said).toMatch(/in-sandbox markers: .*hook-pre-commit/);
        expect(said).toMatch(/in-sandbox markers: .*fsmonitor/);
        expect(result.commits).toHaveLength(2);
        expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("script agent: agent.txt");
        expect(readdirSync(markers)).toEqual([]);
        userGitCommands(repository);
        expect(readdirSync(markers)).toEqual([]);
        expect(gitControlState(repository)).toBe(before);
        expect(existsSync(join(repository, ".git", "planted")), "a file written by the host path of .git").toBe(false);
        expect(
          execFileSync("git", ["fsck", "--no-dangling"], { cwd: repository, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
        ).toBe("");
      }, 60_000);
    }
  },
);
