import { mkdir, rm, writeFile, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Transport } from "@outpost/core";
import { activityKey, type ActivityRecord } from "./activity-record.js";
import { ensureOutpostDirectory, outpostDirectory } from "../workspace/outpost-directory.js";

/** Writes, updates and removes one dispatch's activity record. */
export interface ActivityLog {
  start(record: ActivityRecord): Promise<void>;
  /** Keeps the record, marked with the phase that failed. */
  fail(phase: string, error: { code: string; message: string }): Promise<void>;
  /** Removes the record after a clean close. */
  remove(): Promise<void>;
}

/** Records through `transport` when given, else as a file under `<root>/.outpost/storage`. */
export function createActivityLog(root: string, dispatchId: string, transport?: Transport): ActivityLog {
  return transport ? transportLog(transport, dispatchId) : fileLog(root, join(outpostDirectory(root), "storage", activityKey(dispatchId)));
}

function encode(record: ActivityRecord): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(record, null, 2)}\n`);
}

function transportLog(transport: Transport, dispatchId: string): ActivityLog {
  const key = activityKey(dispatchId);
  let revision: string | undefined;
  let current: ActivityRecord | undefined;
  return {
    async start(record) {
      current = record;
      revision = (await transport.write(key, encode(record), { ifRevision: null })).revision;
    },
    async fail(phase, error) {
      if (!current) return;
      current = { ...current, state: "failed", phase, error };
      revision = (await transport.write(key, encode(current), { ifRevision: revision ?? null })).revision;
    },
    async remove() {
      if (revision) await transport.remove(key, { ifRevision: revision });
      revision = undefined;
    },
  };
}

function fileLog(root: string, path: string): ActivityLog {
  let current: ActivityRecord | undefined;
  const write = async (record: ActivityRecord): Promise<void> => {
    await ensureOutpostDirectory(root);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, encode(record), { mode: 0o600 });
    await rename(temporary, path);
  };
  return {
    async start(record) {
      current = record;
      await write(record);
    },
    async fail(phase, error) {
      if (!current) return;
      current = { ...current, state: "failed", phase, error };
      await write(current);
    },
    async remove() {
      await rm(path, { force: true });
    },
  };
}
