import type { AgentTurn } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { opencodeAgent, opencodeConversationStore } from "../src/index.js";

const turn: AgentTurn = { prompt: "x", root: "/work/repo", home: "/home/agent" };

describe("opencodeAgent across CLI versions", () => {
  it("passes the permission flag each release knows (`--auto` since 1.17.18, `--dangerously-skip-permissions` before)", () => {
    expect(opencodeAgent({ version: "1.17.0" }).command(turn).arguments.slice(0, 4)).toEqual([
      "run",
      "--format",
      "json",
      "--dangerously-skip-permissions",
    ]);
    expect(opencodeAgent({ version: "1.17.18" }).command(turn).arguments.slice(0, 4)).toEqual(["run", "--format", "json", "--auto"]);
    expect(opencodeAgent({ version: "1.18.33" }).command(turn).arguments).not.toContain("--dangerously-skip-permissions");
  });

  it("an opencode store passed without an executable runs the agent's; one that names its own keeps it", () => {
    const unbound = opencodeConversationStore();
    const agent = opencodeAgent({ executable: "/opt/opencode-1.17.0/bin/opencode", storage: unbound });
    // A store of its own, bound to the agent's executable (the given one still runs `opencode` elsewhere).
    expect(agent.storage).not.toBe(unbound);
    expect(agent.storage?.name).toBe("opencode");
    const bound = opencodeConversationStore({ executable: "/usr/local/bin/opencode" });
    expect(opencodeAgent({ executable: "/elsewhere/opencode", storage: bound }).storage).toBe(bound);
  });

  it("reports a kind it does not know once per turn, and not step_start or reasoning", () => {
    const messages: string[] = [];
    const decoder = opencodeAgent({ version: "1.18.33" }).createDecoder({ turn, diagnostic: (message) => messages.push(message) });
    decoder.decode('{"type":"step_start","sessionID":"ses_a","part":{}}');
    decoder.decode('{"type":"reasoning","sessionID":"ses_a","part":{"text":"…"}}');
    const line = '{"type":"file_attached","sessionID":"ses_a","part":{}}';
    expect(decoder.decode(line)).toEqual([expect.objectContaining({ type: "raw", line })]);
    decoder.decode(line);
    expect(messages).toEqual([expect.stringContaining('"file_attached"')]);
  });
});
