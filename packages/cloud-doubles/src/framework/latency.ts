import { setTimeout as sleep } from "node:timers/promises";

/**
 * An injected network delay. On a double in the same process an extra request costs CPU, not latency, so a
 * provider making more round trips than it needs looks as fast as one that does not; with a delay per request
 * (and per WebSocket message) wall time measures what a real network would.
 */
export class Latency {
  constructor(private delayMs = 0) {}

  get ms(): number {
    return this.delayMs;
  }

  set(delayMs: number): void {
    this.delayMs = Math.max(0, delayMs);
  }

  /** One request's round trip. */
  async wait(): Promise<void> {
    if (this.delayMs > 0) await sleep(this.delayMs);
  }

  /**
   * Runs `deliver` one delay later. Timers of one duration fire in the order they were set, so a stream's
   * messages keep their order while each is late by the same amount (a delay, not a rate limit).
   */
  later(deliver: () => void): void {
    if (this.delayMs <= 0) return deliver();
    setTimeout(deliver, this.delayMs);
  }
}
