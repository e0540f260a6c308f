import { describe, expect, it } from "vitest";
import { claudeAgent } from "@outpost/agent-claude";
import { createSteering, dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { scratchRepository } from "../src/index.js";
import { missingCli, pathWithClis } from "./support/cli-bin.js";
import { withModelServer } from "./support/with-model-server.js";

// An instruction sent the moment dispatch() is called, before there is any turn: queued (the steering is
// `pending`), then written into Claude Code's turn as soon as its live input opens — never lost.
const INSTRUCTION = "STEERING-AT-START: answer in French";

const unavailable = missingCli("claude");
(unavailable ? describe.skip : describe)(
  `steering sent before the turn starts${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
  () => {
    it("is queued while pending, delivered into the running Claude Code turn, and the steering ends with the dispatch", async () => {
      const steering = createSteering();
      await withModelServer(
        (request) => ({ text: `saw=${request.transcript.includes(INSTRUCTION)} <outpost>done</outpost>` }),
        async (server) => {
          const running = dispatch({
            agent: claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-outpost-test", maxRetries: 0 }),
            brief: "Say hello.",
            repository: scratchRepository(),
            sandboxProvider: localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
            steering,
          });
          const sent = steering.send(INSTRUCTION);
          expect(steering.state).toBe("pending");
          const result = await running;
          expect(await sent).toEqual({ delivery: "injected", dispatchId: result.dispatchId, pass: 1 });
          expect(server.turns().some((logged) => logged.model?.transcript.includes(INSTRUCTION))).toBe(true);
          expect(steering.state).toBe("ended");
        },
      );
    }, 180_000);
  },
);
