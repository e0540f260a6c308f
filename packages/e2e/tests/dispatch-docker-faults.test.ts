import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE, dockerGate, scratchRepository, scriptAgent } from "../src/index.js";

const gate = dockerGate();
const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
const provider = () =>
  dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "none",
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
  });

/** The dispatch's container, from its activity record. */
function containerOf(repository: string): string {
  const directory = join(repository, ".outpost", "storage", "activity");
  const [name] = readdirSync(directory).filter((entry) => entry.endsWith(".json"));
  const record = JSON.parse(readFileSync(join(directory, name!), "utf8")) as { sandbox?: string };
  if (!record.sandbox) throw new Error(`the activity record names no sandbox: ${JSON.stringify(record)}`);
  return record.sandbox;
}

/** Runs a busy agent; once it has answered, `act` is done to its container. */
async function withContainer(act: (container: string) => void, options: { deadlineMs?: number } = {}) {
  const repository = scratchRepository();
  let container = "";
  const started = Date.now();
  const error = await dispatch({
    agent: scriptAgent({ directory: agentDirectory, executable: "node", behaviour: { HANG: "busy", FILE: "fault.txt" } }),
    brief: "work",
    repository,
    sandboxProvider: provider(),
    branch: { mode: "integrate" },
    until: ["never"],
    ...options,
    observe: ({ event }) => {
      if (event.type === "text" && !container) {
        container = containerOf(repository);
        act(container);
      }
    },
  }).then(
    () => undefined,
    (caught: unknown) => caught as Error & { code: string },
  );
  return { error, container, elapsedMs: Date.now() - started };
}

/** A fault the test could not inject would pass as a hang: it fails loudly instead. */
function docker(...args: string[]): void {
  const result = spawnSync("docker", args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`docker ${args.join(" ")} failed: ${result.stderr}`);
}

function exists(container: string): boolean {
  return spawnSync("docker", ["inspect", container], { encoding: "utf8" }).status === 0;
}

(gate.unavailable ? describe.skip : describe)(
  `Docker faults${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("a paused container does not hold the dispatch past its deadline (plus the stop grace); it is removed", async () => {
      const { error, container, elapsedMs } = await withContainer(
        (id) => {
          docker("pause", id);
        },
        { deadlineMs: 8_000 },
      );
      expect(error?.code).toBe("timeout");
      expect(error?.message).toContain("did not end the stopped agent");
      expect(elapsedMs).toBeLessThan(60_000);
      expect(exists(container)).toBe(false);
    }, 90_000);

    for (const [fault, command] of [
      ["killed", ["kill"]],
      ["removed", ["rm", "-f"]],
    ] as const) {
      it(`a container ${fault} mid-turn is reported as a provider failure, not the agent's`, async () => {
        const { error, container } = await withContainer((id) => {
          docker(...command, id);
        });
        expect(error?.code).toBe("provider");
        expect(error?.message).toContain(fault === "killed" ? "stopped while the command ran" : "was removed while the command ran");
        expect(exists(container)).toBe(false);
      }, 60_000);
    }
  },
);
