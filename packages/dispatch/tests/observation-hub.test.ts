import { describe, expect, it } from "vitest";
import { createObservationHub, type DispatchEvent } from "../src/observe/observation-hub.js";

const warning = (dispatchId: string, message: string): DispatchEvent => ({
  type: "warning",
  dispatchId,
  message,
  timestamp: new Date().toISOString(),
});

describe("observation hub", () => {
  it("a child's events reach the parent; several children report into one parent", () => {
    const parent = createObservationHub();
    const seen: string[] = [];
    parent.subscribe((event) => void seen.push(`${event.dispatchId}:${event.type}`));
    const first = parent.child("a");
    const second = parent.child("b");
    const own: string[] = [];
    first.subscribe((event) => void own.push(event.dispatchId));
    first.emit(warning("a", "one"));
    second.emit(warning("b", "two"));
    expect(seen).toEqual(["a:warning", "b:warning"]);
    expect(own).toEqual(["a"]);
    expect(first.dispatchId).toBe("a");
  });

  it("drain() waits for async listeners, the parent's included, and a rejected one is reported, not thrown", async () => {
    const errors: unknown[] = [];
    const parent = createObservationHub({ onListenerError: (error) => errors.push(error) });
    let finished = 0;
    parent.subscribe(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      finished += 1;
    });
    parent.subscribe(() => Promise.reject(new Error("listener broke")));
    parent.subscribe(() => {
      throw new Error("sync break");
    });
    const child = parent.child("c");
    child.emit(warning("c", "x"));
    expect(finished).toBe(0);
    await child.drain();
    expect(finished).toBe(1);
    expect(errors.map((error) => (error as Error).message).sort()).toEqual(["listener broke", "sync break"]);
  });

  it("unsubscribe stops delivery", () => {
    const hub = createObservationHub();
    const seen: DispatchEvent[] = [];
    const stop = hub.subscribe((event) => void seen.push(event));
    stop();
    hub.emit(warning("d", "x"));
    expect(seen).toEqual([]);
  });
});
