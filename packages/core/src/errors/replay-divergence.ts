import { OutpostError, type OutpostErrorOptions } from "./outpost-error.js";

/** Where a replay left the recorded path. */
export type ReplayDivergenceKind = "prompt" | "baseline" | "tree" | "commit" | "exhausted" | "unrecorded";

/** What a divergence is made of, before it becomes an error. */
export interface ReplayDivergenceInit {
  readonly kind: ReplayDivergenceKind;
  /** What the journal recorded (a prompt, a commit id, a tree id…), when it applies. */
  readonly recorded?: string;
  /** What the replay found instead, when it applies. */
  readonly actual?: string;
  /** 1-based pass the divergence belongs to. */
  readonly pass?: number;
  readonly message: string;
}

/**
 * One divergence between a journal and the dispatch replaying it. Under `divergence: "fail"` it is thrown
 * (code `replay`); under `warn` it is collected in `result.divergences`. Its fields are also in `details.divergence`.
 */
export class ReplayDivergence extends OutpostError {
  readonly kind: ReplayDivergenceKind;
  readonly recorded?: string;
  readonly actual?: string;
  /** The same value as `actual` (the name earlier releases used). */
  readonly found?: string;
  readonly pass?: number;

  /** `options`: a cause, and details beside `divergence` (the dispatch adds `recovery`). */
  constructor(init: ReplayDivergenceInit, options: OutpostErrorOptions = {}) {
    const divergence = {
      kind: init.kind,
      ...(init.recorded !== undefined ? { recorded: init.recorded } : {}),
      ...(init.actual !== undefined ? { actual: init.actual, found: init.actual } : {}),
      ...(init.pass !== undefined ? { pass: init.pass } : {}),
      message: init.message,
    };
    super("replay", init.message, { ...options, details: { ...options.details, divergence } });
    this.kind = init.kind;
    if (init.recorded !== undefined) this.recorded = init.recorded;
    if (init.actual !== undefined) {
      this.actual = init.actual;
      this.found = init.actual;
    }
    if (init.pass !== undefined) this.pass = init.pass;
  }

  /** As `result.divergences` serializes it: the divergence's own fields, its message included. */
  toJSON(): Record<string, unknown> {
    return { ...(this.details["divergence"] as Record<string, unknown>) };
  }

  /** True for a ReplayDivergence, also one from another copy of this package. */
  static isDivergence(value: unknown): value is ReplayDivergence {
    return OutpostError.isInstance(value) && value.code === "replay" && typeof (value as { kind?: unknown }).kind === "string";
  }
}
