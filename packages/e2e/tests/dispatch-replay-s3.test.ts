import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentEvent, Transport } from "@outpost/core";
import { createReplayAgent, dispatch, readJournal } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { s3Gate, type MotoServer } from "@outpost/testkit/gates";
import { s3Transport } from "@outpost/transport-s3";
import { gitIn, scratchRepository, scriptAgent } from "../src/index.js";

// A journal recorded through S3 (moto) on one machine is read back by another client and replayed.
const gated = await s3Gate();
const SECRET = "sk-journal-s3-secret-0123456789";

afterAll(async () => {
  await gated.server?.stop();
});

function transportOf(server: MotoServer, bucket: string): Transport {
  const client = new S3Client(server.clientSettings());
  server.onStop(() => client.destroy());
  return s3Transport({ client, bucket, prefix: "team/journals" });
}

const COMMIT_TWICE = [
  "printf 'one\\n' > one.txt && git add one.txt && git commit -q -m 'Add one.txt'",
  "printf 'two\\000\\377' > two.bin && git add two.bin && git commit -q -m 'Add two.bin'",
].join(" && ");

if (gated.server) {
  const server = gated.server;
  describe("replay through the S3 transport (moto_server on loopback)", () => {
    it("records through S3 and replays from a fresh client in a fresh clone: same events, usage and commit ids; no secret stored", async () => {
      await server.createBucket("journals");
      const repository = scratchRepository();
      const source = mkdtempSync(join(tmpdir(), "outpost-replay-s3-source-"));
      execFileSync("git", ["clone", "--quiet", "--bare", repository, source]);
      const recorded: AgentEvent[] = [];
      const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-replay-s3-agent-"));
      const result = await dispatch({
        // The agent prints every variable it sees, the key the provider gives it included: the journal must not keep it.
        agent: scriptAgent({ directory: agentDirectory, behaviour: { SHELL: COMMIT_TWICE, PRINT_ENVIRONMENT: "1" } }),
        brief: "commit twice",
        repository,
        sandboxProvider: localProvider({ home: "private", variables: { SCRIPT_AGENT_API_KEY: SECRET } }),
        logging: { transport: transportOf(server, "journals"), replayable: true },
        observe: (observation) => {
          // The agent's own events; fallbacks and steering are the engine's.
          if (observation.event.type !== "fallback" && observation.event.type !== "steer" && observation.event.type !== "watchdog")
            recorded.push(observation.event);
        },
      });
      expect(result.commits).toHaveLength(2);
      expect(result.journal?.key).toBe(`journals/${result.dispatchId}/index.json`);

      const elsewhere = transportOf(server, "journals");
      const keys: string[] = [];
      for await (const entry of elsewhere.list("journals/")) {
        keys.push(entry.key);
        const object = await elsewhere.read(entry.key);
        expect(new TextDecoder().decode(object!.bytes)).not.toContain(SECRET);
      }
      expect(keys).toContain(result.journal!.key);
      const journal = await readJournal({ transport: elsewhere, reference: result.journal! });
      expect(journal.complete).toBe(true);

      const clone = mkdtempSync(join(tmpdir(), "outpost-replay-s3-clone-"));
      execFileSync("git", ["clone", "--quiet", source, clone]);
      const replayedEvents: AgentEvent[] = [];
      const replayed = await dispatch({
        agent: createReplayAgent({ journal }),
        brief: "commit twice",
        repository: clone,
        sandboxProvider: localProvider({ home: "private" }),
        logging: false,
        observe: (observation) => {
          // The agent's own events; fallbacks and steering are the engine's.
          if (observation.event.type !== "fallback" && observation.event.type !== "steer" && observation.event.type !== "watchdog")
            replayedEvents.push(observation.event);
        },
      });
      // The agent printed the key; observations carry it redacted (credentials are redacted by default), as
      // the journal does, so the replay gives the same events.
      expect(JSON.stringify(recorded)).not.toContain(SECRET);
      expect(JSON.stringify(recorded)).toContain("SCRIPT_AGENT_API_KEY=[redacted]");
      expect(replayedEvents).toEqual(recorded.filter((event) => event.type !== "raw"));
      expect(replayed.usage).toEqual(result.usage);
      expect(replayed.commits).toEqual(result.commits);
      expect(gitIn(clone, "rev-parse", "HEAD")).toBe(gitIn(repository, "rev-parse", "HEAD"));
      expect(replayed.divergences).toEqual([]);
    }, 120_000);
  });
} else {
  describe("replay through the S3 transport", () => {
    it.skip(`unavailable: ${gated.unavailable?.reason ?? "no S3 server"}`, () => undefined);
  });
}
