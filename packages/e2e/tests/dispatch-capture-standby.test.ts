import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { transcriptStore } from "@outpost/conversations";
import type { AgentAdapter, Command, SandboxLease, SandboxProvider } from "@outpost/core";
import { DOCKER_TEST_IMAGE, dockerGate, scratchRepository } from "../src/index.js";
import { jsonLineDecoder } from "./support/json-line-decoder.js";

const gate = dockerGate();
const ID = "3f9c2a10-aaaa-4bbb-8ccc-0123456789ab";
const LINE = `{"type":"user","text":"hello from the container"}`;

/** Transcripts at `~/.standby-demo/sessions/<id>.jsonl`, captured as every CLI agent's transcript store does. */
const store = transcriptStore({
  format: "standby-demo",
  root: { directory: ".standby-demo" },
  sessions: "sessions",
  transcriptPattern: (id) => `^${id}\\.jsonl$`,
  destination: ({ id }) => `${id}.jsonl`,
});

/** One shell line in the container: names its conversation, runs `work`, saves the transcript, finishes. */
function agent(work: string): AgentAdapter {
  const line =
    `printf '{"type":"conversation","id":"${ID}"}\\n'; ${work}; mkdir -p ~/.standby-demo/sessions && ` +
    `printf '%s\\n' '${LINE}' > ~/.standby-demo/sessions/${ID}.jsonl && ` +
    `printf '{"type":"text","text":"done <outpost>done</outpost>"}\\n{"type":"finished"}\\n'`;
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "standby-agent",
    executable: "sh",
    requiresFinishedEvent: true,
    usage: "unavailable",
    resumable: false,
    forkable: false,
    storage: store,
    command: () => ({ executable: "sh", arguments: ["-c", line], variables: {} }),
    createDecoder: jsonLineDecoder,
  };
}

interface Seen {
  readonly executable: string;
  readonly live: boolean;
  readonly locating: boolean;
}

/** The real Docker provider, with every command its leases run written down. */
function observedProvider(seen: Seen[]): SandboxProvider {
  const base = dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "none",
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
  });
  const observe = (lease: SandboxLease): SandboxLease =>
    new Proxy(lease, {
      get(target, property, receiver) {
        if (property === "invoke")
          return (command: Command) => {
            seen.push({
              executable: command.executable,
              live: command.input !== undefined,
              locating: command.stdin?.includes('"pattern"') === true,
            });
            return target.invoke(command);
          };
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  return { ...base, acquire: async (context) => observe(await base.acquire(context)) };
}

// Kills every `node -e` process of the container: what a hostile agent could do to the waiting script.
const KILL_WAITING_SCRIPTS = `for p in /proc/[0-9]*; do case "$(tr '\\0' ' ' < "$p/cmdline" 2>/dev/null)" in "node -e"*) kill -9 "\${p#/proc/}" 2>/dev/null;; esac; done`;

(gate.unavailable ? describe.skip : describe)(
  `capture prepared during the turn on Docker${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    /** One dispatch of `agent(work)` on the observed provider: what it captured, the commands, the warnings. */
    const run = async (work: string) => {
      const seen: Seen[] = [];
      const warnings: string[] = [];
      const result = await dispatch({
        agent: agent(work),
        brief: "work",
        repository: scratchRepository(),
        sandboxProvider: observedProvider(seen),
        warn: (message) => warnings.push(message),
      });
      expect(result.conversation?.id).toBe(ID);
      expect(await readFile(result.conversation!.file, "utf8")).toBe(`${LINE}\n`);
      expect(warnings).toEqual([]);
      return {
        waiting: seen.filter((command) => command.executable === "node" && command.live),
        locating: seen.filter((command) => command.locating),
      };
    };

    it("a long turn: the locating script starts beside the agent, and the capture only hands it its input", async () => {
      const { waiting, locating } = await run("sleep 1.5");
      expect(waiting).toHaveLength(1);
      expect(locating).toEqual([]);
    }, 90_000);

    it("a short turn too: the script started beside the agent serves its capture", async () => {
      const { waiting, locating } = await run("true");
      expect(waiting).toHaveLength(1);
      expect(locating).toEqual([]);
    }, 90_000);

    it("an agent that kills the waiting script loses nothing: the capture runs it again", async () => {
      const { waiting, locating } = await run(`sleep 1.5; ${KILL_WAITING_SCRIPTS}`);
      expect(waiting).toHaveLength(1);
      expect(locating).toHaveLength(1);
    }, 90_000);
  },
);
