import { describe, expect, it } from "vitest";
import type { AgentAdapter, SandboxLease } from "@outpost/core";
import { createSteering } from "../src/steering/steering.js";
import { holdSteering } from "../src/steering/held-steering.js";
import { DispatchSteering } from "../src/steering/dispatch-steering.js";

// Steering by resuming treats an omitted `resumable` as continuation and repairs do: it is tried.
const agent = (resumable?: boolean): AgentAdapter =>
  ({ kind: "cli", name: "plain", ...(resumable === undefined ? {} : { resumable }) }) as AgentAdapter;
const lease = { liveInput: false } as SandboxLease;

describe("steering an agent that does not say whether it can resume", () => {
  it("queues an instruction sent before the turn, then stops the turn once its conversation is known and resumes it", async () => {
    const steering = createSteering();
    const held = holdSteering(steering)!;
    const sent = steering.send("use v2");
    const dispatchSteering = new DispatchSteering(held, "d1", () => undefined);
    expect(steering.state).toBe("pending");
    const control = dispatchSteering.open(agent(), lease, 1, "conversation-1");
    expect(steering.state).toBe("attached");
    await new Promise((resolve) => setImmediate(resolve));
    expect(control.interrupt.aborted).toBe(true);
    control.close();
    const [waiting] = dispatchSteering.takeForResume(agent());
    expect(waiting?.text).toBe("use v2");
    dispatchSteering.resumed(waiting!, 1);
    await expect(sent).resolves.toEqual({ delivery: "resumed", dispatchId: "d1", pass: 1 });
    dispatchSteering.detach("done");
    expect(steering.state).toBe("ended");
  });

  it("refuses, saying why, when the agent says it cannot resume", async () => {
    const steering = createSteering();
    const dispatchSteering = new DispatchSteering(holdSteering(steering)!, "d1", () => undefined);
    dispatchSteering.open(agent(false), lease, 1, "conversation-1");
    await expect(steering.send("use v2")).rejects.toThrow(/cannot resume its conversation \(resumable is false\)/);
  });
});
