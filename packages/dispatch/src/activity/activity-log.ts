import { mkdir, rm, writeFile, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Transport } from "@outpost/core";
import { activityKey, type ActivityRecord } from "./activity-record.js";
import { ensureOutpostDirectory, outpostDirectory } from "../workspace/outpost-directory.js";

/** Writes, updates and removes one dispatch's activity record. */
export interface ActivityLog {
  start(record: ActivityRecord): Promise<void>;
  /** Adds what became known (worktree, container, agent process group…). */
  update(change: Partial<ActivityRecord>): Promise<void>;
  /** Keeps the record, marked with the phase that failed. */
  fail(phase: string, error: { code: string; message: string }): Promise<void>;
  /** Removes the record after a clean close. */
  remove(): Promise<void>;
}

/** Records through `transport` when given, else as a file under `<root>/.outpost/storage`. */
export function createActivityLog(root: string, dispatchId: string, transport?: Transport): ActivityLog {
  return transport ? transportLog(transport, dispatchId) : fileLog(root, activityFile(root, dispatchId));
}

/** Where the default (file) log keeps a dispatch's record. */
export function activityFile(root: string, dispatchId: string): string {
  return join(outpostDirectory(root), "storage", activityKey(dispatchId));
}

function encode(record: ActivityRecord): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(record, null, 2)}\n`);
}

// Updates are chained: a record is never written twice at once, and a later change never lands first.
function serialized(write: (record: ActivityRecord) => Promise<void>) {
  let current: ActivityRecord | undefined;
  let chain: Promise<void> = Promise.resolve();
  const run = (next: (record: ActivityRecord) => ActivityRecord | undefined): Promise<void> => {
    const step = chain.then(async () => {
      const record = current && next(current);
      if (!record) return;
      current = record;
      await write(record);
    });
    chain = step.catch(() => undefined);
    return step;
  };
  return {
    start: (record: ActivityRecord) => {
      current = record;
      return run((value) => value);
    },
    update: (change: Partial<ActivityRecord>) => run((value) => ({ ...value, ...change })),
    fail: (phase: string, error: { code: string; message: string }) => run((value) => ({ ...value, state: "failed", phase, error })),
    settled: () => chain,
  };
}

function transportLog(transport: Transport, dispatchId: string): ActivityLog {
  const key = activityKey(dispatchId);
  let revision: string | undefined;
  const log = serialized(async (record) => {
    revision = (await transport.write(key, encode(record), { ifRevision: revision ?? null })).revision;
  });
  return {
    start: log.start,
    update: log.update,
    fail: log.fail,
    async remove() {
      await log.settled();
      if (revision) await transport.remove(key, { ifRevision: revision });
      revision = undefined;
    },
  };
}

function fileLog(root: string, path: string): ActivityLog {
  const log = serialized(async (record) => {
    await ensureOutpostDirectory(root);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, encode(record), { mode: 0o600 });
    await rename(temporary, path);
  });
  return {
    start: log.start,
    update: log.update,
    fail: log.fail,
    async remove() {
      await log.settled();
      await rm(path, { force: true });
    },
  };
}
