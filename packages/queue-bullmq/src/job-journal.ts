import type { Job } from "bullmq";
import type { JournalLine } from "./dispatch-job-result.js";

/** What `outpost queue status|watch` reads from a running job (BullMQ job progress). */
export interface DispatchJobProgress {
  readonly phase: string;
  readonly worker: string;
  readonly fence: number;
  /** Agent events seen so far. */
  readonly events: number;
  readonly at: string;
}

const MAX_LINES = 2_000;

/**
 * The journal of one attempt: every phase and agent event, kept for the stored result and sent as job log
 * lines; the progress record is updated at each phase. Queue writes never fail the job (Redis may be
 * restarting): they are best effort, the stored result is the record.
 */
export class JobJournal {
  readonly lines: JournalLine[] = [];
  #events = 0;
  #phase = "starting";
  readonly #job: Job;
  readonly #worker: string;
  readonly #fence: number;
  #writes: Promise<unknown> = Promise.resolve();

  constructor(job: Job, worker: string, fence: number) {
    this.#job = job;
    this.#worker = worker;
    this.#fence = fence;
  }

  phase(phase: string, detail?: string): void {
    this.#phase = phase;
    this.#record(phase, detail);
    this.#send(() => this.#job.updateProgress(this.progress()));
  }

  event(type: string, detail?: string): void {
    this.#events += 1;
    this.#record(`agent:${type}`, detail);
  }

  progress(): DispatchJobProgress {
    return { phase: this.#phase, worker: this.#worker, fence: this.#fence, events: this.#events, at: new Date().toISOString() };
  }

  /** Waits for queued queue writes (at most `ms`). */
  async flush(ms = 5_000): Promise<void> {
    await Promise.race([this.#writes, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
  }

  #record(event: string, detail?: string): void {
    const line: JournalLine = { at: new Date().toISOString(), event, ...(detail === undefined ? {} : { detail: detail.slice(0, 500) }) };
    if (this.lines.length < MAX_LINES) this.lines.push(line);
    this.#send(() => this.#job.log(`${line.at} ${event}${line.detail ? ` ${line.detail}` : ""}`));
  }

  #send(write: () => Promise<unknown>): void {
    this.#writes = this.#writes.then(write).catch(() => undefined);
  }
}
