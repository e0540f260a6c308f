import { describe, expect, it } from "vitest";
import { TurnTimers, type TimerStop } from "../src/timers/turn-timers.js";

function timers(settings: Partial<{ idleMs: number; idleWarningMs: number; settleMs: number; deadlineMs: number }>) {
  const warnings: number[] = [];
  const stops: TimerStop[] = [];
  const clock = new TurnTimers(
    { idleMs: 10_000, idleWarningMs: 10_000, settleMs: 10_000, deadlineMs: 10_000, ...settings },
    {
      onIdleWarning: (silent) => warnings.push(silent),
      onStop: (reason) => stops.push(reason),
    },
  );
  return { clock, warnings, stops };
}

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe("TurnTimers", () => {
  it("warns every idleWarningMs of silence, then stops at idleMs", async () => {
    const { clock, warnings, stops } = timers({ idleMs: 260, idleWarningMs: 80 });
    clock.start();
    await wait(350);
    expect(warnings.length).toBe(3);
    expect(warnings[1]!).toBeGreaterThan(warnings[0]!);
    expect(stops).toEqual(["idle"]);
  });

  it("output resets the idle clock", async () => {
    const { clock, stops } = timers({ idleMs: 150 });
    clock.start();
    for (let index = 0; index < 5; index += 1) {
      await wait(60);
      clock.activity();
    }
    expect(stops).toEqual([]);
    clock.clear();
  });

  it("the deadline fires even while output keeps coming", async () => {
    const { clock, stops } = timers({ deadlineMs: 150 });
    clock.start();
    for (let index = 0; index < 5; index += 1) {
      await wait(50);
      clock.activity();
    }
    expect(stops).toEqual(["deadline"]);
  });

  it("settles settleMs after the first marker, once", async () => {
    const { clock, stops } = timers({ settleMs: 60 });
    clock.start();
    clock.markerSeen();
    await wait(30);
    clock.markerSeen();
    await wait(60);
    expect(stops).toEqual(["settled"]);
  });

  it("clear stops everything", async () => {
    const { clock, warnings, stops } = timers({ idleMs: 50, idleWarningMs: 20, deadlineMs: 50 });
    clock.start();
    clock.clear();
    await wait(100);
    expect([warnings, stops]).toEqual([[], []]);
  });
});
