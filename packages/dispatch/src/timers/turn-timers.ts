/** Why a turn was stopped by its timers. `settled` ends the turn as a success. */
export type TimerStop = "idle" | "deadline" | "settled";

export interface TurnTimerSettings {
  readonly idleMs: number;
  readonly idleWarningMs: number;
  readonly settleMs: number;
  readonly deadlineMs: number;
}

export interface TurnTimerCallbacks {
  /** Silence reached another idleWarningMs step. */
  readonly onIdleWarning: (silentMs: number) => void;
  readonly onStop: (reason: TimerStop) => void;
}

/**
 * The clocks of one agent process: idle (reset by any output, with a warning every idleWarningMs of
 * silence), an absolute deadline, and a settle delay started by the first end marker.
 */
export class TurnTimers {
  private idle?: NodeJS.Timeout;
  private warning?: NodeJS.Timeout;
  private deadline?: NodeJS.Timeout;
  private settle?: NodeJS.Timeout;
  private lastActivity = Date.now();
  private stopped = false;

  constructor(
    private readonly settings: TurnTimerSettings,
    private readonly callbacks: TurnTimerCallbacks,
  ) {}

  start(): void {
    this.deadline = setTimeout(() => this.fire("deadline"), this.settings.deadlineMs);
    this.activity();
  }

  /** Output arrived: the agent is not idle. */
  activity(): void {
    if (this.stopped) return;
    this.lastActivity = Date.now();
    clearTimeout(this.idle);
    clearTimeout(this.warning);
    this.idle = setTimeout(() => this.fire("idle"), this.settings.idleMs);
    this.scheduleWarning();
  }

  /** An end marker was seen: stop the process after settleMs if it is still running. */
  markerSeen(): void {
    if (this.stopped || this.settle) return;
    this.settle = setTimeout(() => this.fire("settled"), this.settings.settleMs);
  }

  clear(): void {
    this.stopped = true;
    for (const timer of [this.idle, this.warning, this.deadline, this.settle]) clearTimeout(timer);
  }

  private scheduleWarning(): void {
    if (this.settings.idleWarningMs <= 0 || this.settings.idleWarningMs >= this.settings.idleMs) return;
    this.warning = setTimeout(() => {
      if (this.stopped) return;
      this.callbacks.onIdleWarning(Date.now() - this.lastActivity);
      this.scheduleWarning();
    }, this.settings.idleWarningMs);
  }

  private fire(reason: TimerStop): void {
    if (this.stopped) return;
    this.clear();
    this.callbacks.onStop(reason);
  }
}
