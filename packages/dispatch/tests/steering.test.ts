import { describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { attachSteering, createSteering } from "../src/steering/steering.js";

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isOutpostError(error)) throw new Error(`expected an OutpostError, got ${String(error)}`);
  return error;
}

describe("createSteering", () => {
  it("is pending until a dispatch takes it: an instruction sent before waits and reaches the dispatch that attaches it", async () => {
    const steering = createSteering();
    expect(steering.state).toBe("pending");
    const early = steering.send("go");
    let arrived = 0;
    const attachment = attachSteering(steering, { dispatchId: "d1", arrived: () => void (arrived += 1) });
    expect(steering.state).toBe("pending");
    expect(attachment.waiting).toBe(1);
    attachment.mark("attached");
    expect(steering.state).toBe("attached");
    attachment.take()[0]!.deliver({ delivery: "injected", dispatchId: "d1", pass: 1 });
    await expect(early).resolves.toEqual({ delivery: "injected", dispatchId: "d1", pass: 1 });
    attachment.detach("the dispatch ended");
    expect(steering.state).toBe("ended");
  });

  it("refuses a send with code steering once its dispatch ended, and says what to do", async () => {
    const steering = createSteering();
    attachSteering(steering, { dispatchId: "d1", arrived: () => undefined }).detach("done");
    const error = await refusal(steering.send("go"));
    expect(error.code).toBe("steering");
    expect(error.message).toMatch(/no dispatch is running with this steering; pass it as dispatch\(\{ steering \}\)/);
  });

  it("refuses empty instructions", async () => {
    const steering = createSteering();
    attachSteering(steering, { dispatchId: "d1", arrived: () => undefined });
    for (const text of ["", "  \n"]) expect((await refusal(steering.send(text))).message).toMatch(/the instruction is empty/);
  });

  it("close() rejects what was not delivered and refuses later sends", async () => {
    const steering = createSteering();
    let arrived = 0;
    attachSteering(steering, { dispatchId: "d1", arrived: () => void (arrived += 1) });
    const waiting = steering.send("first");
    expect(arrived).toBe(1);
    steering.close();
    expect(steering.closed).toBe(true);
    expect((await refusal(waiting)).message).toMatch(/closed before the instruction was delivered/);
    expect((await refusal(steering.send("second"))).message).toMatch(/the steering was closed/);
  });

  it("hands instructions to the attached dispatch, which delivers them; detach refuses the rest with its reason", async () => {
    const steering = createSteering();
    const attachment = attachSteering(steering, { dispatchId: "d1", arrived: () => undefined });
    const delivered = steering.send("one");
    const refused = steering.send("two");
    expect(attachment.waiting).toBe(2);
    const [one, two] = attachment.take();
    one!.deliver({ delivery: "injected", dispatchId: "d1", pass: 1 });
    two!.refuse("the agent cannot take it");
    await expect(delivered).resolves.toEqual({ delivery: "injected", dispatchId: "d1", pass: 1 });
    expect((await refusal(refused)).message).toBe("The steering message was not delivered: the agent cannot take it.");
    expect(attachment.waiting).toBe(0);
    const pending = steering.send("three");
    attachment.detach("the dispatch ended");
    expect((await refusal(pending)).message).toMatch(/the dispatch ended/);
    expect((await refusal(steering.send("four"))).message).toMatch(/no dispatch is running/);
  });

  it("belongs to one dispatch at a time (code configuration), and can be attached again once released", () => {
    const steering = createSteering();
    const attachment = attachSteering(steering, { dispatchId: "d1", arrived: () => undefined });
    let error: unknown;
    try {
      attachSteering(steering, { dispatchId: "d2", arrived: () => undefined });
    } catch (caught) {
      error = caught;
    }
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect((error as Error).message).toContain("already attached to dispatch d1");
    attachment.detach("done");
    expect(() => attachSteering(steering, { dispatchId: "d2", arrived: () => undefined })).not.toThrow();
  });

  it("refuses an object that did not come from createSteering()", () => {
    const forged = { send: () => Promise.reject(new Error("x")), close: () => undefined, closed: false, state: "pending" as const };
    expect(() => attachSteering(forged, { dispatchId: "d1", arrived: () => undefined })).toThrow(/must come from createSteering/);
  });
});
