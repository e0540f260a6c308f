import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository, scriptAgent } from "../src/index.js";

const gate = dockerGate();
const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
const volumes: string[] = [];
// Remote placement; `root` optionally a named volume, so a later sandbox finds what an earlier one held.
const provider = (root?: string) =>
  dockerProvider({
    image: DOCKER_TEST_IMAGE,
    mode: "isolated",
    network: "none",
    user: { uid: 0, gid: 0 },
    volumes: [
      { source: agentDirectory, target: agentDirectory, readOnly: true },
      ...(root ? [{ source: root, target: "/workspace" }] : []),
    ],
  });
const agentWith = (behaviour: Record<string, string>) => scriptAgent({ directory: agentDirectory, executable: "node", behaviour });

afterAll(() => {
  for (const volume of volumes) execFileSync("docker", ["volume", "rm", "--force", volume], { stdio: "ignore" });
});

(gate.unavailable ? describe.skip : describe)(
  `remote repository sync on Docker isolated${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("a second dispatch into a sandbox holding a verified ancestor sends a delta bundle", async () => {
      const repository = scratchRepository();
      // Incompressible history, so the full bundle is large next to a one-file delta.
      writeFileSync(join(repository, "blob.bin"), randomBytes(256 * 1024));
      gitIn(repository, "add", "blob.bin");
      gitIn(repository, "commit", "--quiet", "-m", "large history");
      const volume = `outpost-test-root-${randomUUID().slice(0, 8)}`;
      volumes.push(volume);
      const first = await dispatch({ agent: agentWith({ FILE: "one.txt" }), brief: "x", repository, sandboxProvider: provider(volume) });
      expect(first.commits).toHaveLength(1);
      // The host moves on by one small commit before the second dispatch.
      writeFileSync(join(repository, "host.txt"), "host change\n");
      gitIn(repository, "add", "host.txt");
      gitIn(repository, "commit", "--quiet", "-m", "host change");
      const diagnostics: string[] = [];
      const second = await dispatch({
        agent: agentWith({ FILE: "two.txt" }),
        brief: "x",
        repository,
        sandboxProvider: provider(volume),
        diagnostic: (message) => diagnostics.push(message),
      });
      expect(second.commits).toHaveLength(1);
      const sent = (message: string | undefined) => Number(/^seed: (\d+) bytes/.exec(message ?? "")?.[1]);
      const seeds = diagnostics.filter((message) => message.startsWith("seed: "));
      expect(seeds).toHaveLength(1);
      expect(seeds[0]).toContain("delta");
      // The full seed a fresh sandbox gets, for comparison.
      const fresh: string[] = [];
      await dispatch({
        agent: agentWith({}),
        brief: "x",
        repository,
        sandboxProvider: provider(),
        diagnostic: (message) => fresh.push(message),
      });
      const full = sent(fresh.find((message) => message.startsWith("seed: ")));
      expect(full).toBeGreaterThan(256 * 1024);
      expect(sent(seeds[0])).toBeGreaterThan(0);
      expect(sent(seeds[0])).toBeLessThan(full / 20);
      expect(gitIn(repository, "show", "main:two.txt")).toContain("script agent");
      expect(gitIn(repository, "show", "main:one.txt")).toContain("script agent");
    }, 180_000);

    it("a sandbox that claims commits it does not hold gets the whole branch, and the dispatch still succeeds", async () => {
      const repository = scratchRepository();
      const volume = `outpost-test-root-${randomUUID().slice(0, 8)}`;
      volumes.push(volume);
      await dispatch({ agent: agentWith({ FILE: "one.txt" }), brief: "x", repository, sandboxProvider: provider(volume) });
      writeFileSync(join(repository, "host.txt"), "host change\n");
      gitIn(repository, "add", "host.txt");
      gitIn(repository, "commit", "--quiet", "-m", "host change");
      // A previous agent left refs naming host commits whose objects the sandbox never received.
      const claimed = gitIn(repository, "rev-parse", "main");
      const plant = `mkdir -p /workspace/.git/refs/heads && echo ${claimed} > /workspace/.git/refs/heads/claimed`;
      execFileSync("docker", ["run", "--rm", "-v", `${volume}:/workspace`, DOCKER_TEST_IMAGE, "sh", "-c", plant]);
      const diagnostics: string[] = [];
      const result = await dispatch({
        agent: agentWith({ FILE: "two.txt" }),
        brief: "x",
        repository,
        sandboxProvider: provider(volume),
        diagnostic: (message) => diagnostics.push(message),
      });
      expect(result.commits).toHaveLength(1);
      expect(diagnostics.find((message) => message.startsWith("seed: "))).not.toContain("delta");
      expect(gitIn(repository, "show", "main:two.txt")).toContain("script agent");
    }, 180_000);
  },
);
