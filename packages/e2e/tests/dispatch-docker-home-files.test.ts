import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { isOutpostError, type AgentAdapter, type AgentHomeFile } from "@outpost/core";
import { DOCKER_TEST_IMAGE, dockerGate, scratchRepository } from "../src/index.js";
import { jsonLineDecoder } from "./support/json-line-decoder.js";

const gate = dockerGate();
const provider = () =>
  dockerProvider({ image: DOCKER_TEST_IMAGE, network: "none", user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 } });
const SETTINGS: AgentHomeFile = { path: ".tool/nested/settings.json", content: "telemetry-off" };

/** An agent that is one shell line in the container; its home files are written by the turn's own exec. */
function shellAgent(line: string, files: readonly AgentHomeFile[]): AgentAdapter {
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "home-files-agent",
    executable: "sh",
    requiresFinishedEvent: true,
    usage: "unavailable",
    resumable: false,
    forkable: false,
    command: () => ({ executable: "sh", arguments: ["-c", line], variables: {} }),
    homeFiles: () => files,
    createDecoder: jsonLineDecoder,
  };
}

const say = (text: string, marker: boolean) =>
  `printf '{"type":"text","text":"%s"}\\n{"type":"finished"}\\n' "${text}${marker ? " <outpost>done</outpost>" : ""}"`;

(gate.unavailable ? describe.skip : describe)(
  `dispatch home files on Docker${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("the turn's exec writes the home files before the agent starts: content, 0600 in 0700 directories", async () => {
      const line = say(
        "$(cat ~/.tool/nested/settings.json) $(stat -c %a ~/.tool ~/.tool/nested ~/.tool/nested/settings.json | tr '\\n' ' ')",
        true,
      );
      const result = await dispatch({
        agent: shellAgent(line, [{ ...SETTINGS, content: "first" }, SETTINGS]),
        brief: "read the settings",
        repository: scratchRepository(),
        sandboxProvider: provider(),
      });
      expect(result.text).toContain("telemetry-off 700 700 600");
    }, 60_000);

    for (const [name, plant] of [
      ["a parent", "rm -rf ~/.tool && ln -s /tmp ~/.tool"],
      ["the file itself", "rm -f ~/.tool/nested/settings.json && ln -s /tmp/planted ~/.tool/nested/settings.json"],
      ["a parent leading inside the home", "mkdir -p ~/elsewhere && rm -rf ~/.tool && ln -s elsewhere ~/.tool"],
    ] as const) {
      it(`a link the agent planted at ${name} fails the next pass's start with workspace, and nothing is written through it`, async () => {
        // Pass 1 plants the link (no end marker, so a second pass runs); pass 2's home files meet it.
        const line = `if [ -e ~/.planted ]; then ${say("second pass ran", true)}; else touch ~/.planted && ${plant} && ${say("planted", false)}; fi`;
        const error = await dispatch({
          agent: shellAgent(line, [SETTINGS]),
          brief: "plant a link",
          repository: scratchRepository(),
          sandboxProvider: provider(),
          passes: 2,
        }).catch((failure: unknown) => failure);
        expect(isOutpostError(error, "workspace"), String(error)).toBe(true);
        expect(String(error)).toMatch(/is a symbolic link/);
        expect(String(error)).toMatch(/did not start/);
      }, 60_000);
    }
  },
);
