import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository, scriptAgent } from "../src/index.js";

const gate = dockerGate();
const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
// The agent script lives on the host; mount it read-only at the same path. Root-owned scratch repositories
// need the container to run as their owner.
const provider = () =>
  dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "none",
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
  });
const agentWith = (behaviour: Record<string, string>) => scriptAgent({ directory: agentDirectory, executable: "node", behaviour });

(gate.unavailable ? describe.skip : describe)(
  `dispatch on Docker${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("integrate: the agent commits inside the container and the commit lands on the host branch", async () => {
      const repository = scratchRepository();
      const result = await dispatch({
        agent: agentWith({ FILE: "docker.txt" }),
        brief: "write docker.txt",
        repository,
        sandboxProvider: provider(),
        branch: { mode: "integrate" },
      });
      expect(result.completed).toBe(true);
      expect(result.commits).toHaveLength(1);
      expect(gitIn(repository, "rev-parse", "main")).toBe(result.commits[0]);
      expect(readFileSync(join(repository, "docker.txt"), "utf8")).toContain("script agent");
      expect(gitIn(repository, "fsck", "--strict", "--no-dangling")).toBe("");
    }, 60_000);

    it("continues the captured conversation in a fresh container: the second turn sees the first", async () => {
      const repository = scratchRepository();
      const conversationHome = mkdtempSync(join(tmpdir(), "outpost-conversations-"));
      const agent = agentWith({});
      const first = await dispatch({ agent, brief: "first in docker", repository, sandboxProvider: provider(), conversationHome });
      const second = await dispatch({
        agent,
        brief: "second in docker",
        repository,
        sandboxProvider: provider(),
        conversationHome,
        continuation: { id: first.conversationId! },
      });
      expect(second.conversationId).toBe(first.conversationId);
      expect(second.text).toContain('saw 1 earlier prompt(s): ["first in docker"]');
    }, 60_000);

    it("deadline ends the agent's processes in the container; the worktree stays recoverable", async () => {
      const repository = scratchRepository();
      const error = await dispatch({
        agent: agentWith({ HANG: "busy", FILE: "partial.txt" }),
        brief: "work",
        repository,
        sandboxProvider: provider(),
        branch: { mode: "integrate" },
        deadlineMs: 2_000,
        until: ["never"],
      }).then(
        () => undefined,
        (caught: unknown) => caught as { code: string; details: { recovery: { commits: string[]; directory: string } } },
      );
      expect(error?.code).toBe("timeout");
      expect(error?.details.recovery.commits).toHaveLength(1);
      expect(readFileSync(join(error!.details.recovery.directory, "partial.txt"), "utf8")).toContain("script agent");
    }, 60_000);
  },
);
