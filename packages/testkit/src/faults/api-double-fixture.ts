import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { SandboxContext } from "@outpost/core";

/** What a cloud provider's API double must offer the fixture: a way to stop it. */
export interface ClosableDouble {
  close(): Promise<void>;
}

/** A started double and a scratch worktree (one `README`) to acquire leases for; valid inside the file's tests. */
export interface ApiDoubleFixture<Double extends ClosableDouble> {
  readonly double: Double;
  /** A context whose repository and directory are the scratch worktree, with no git directories or variables. */
  readonly context: SandboxContext;
}

/**
 * Starts `start()`'s API double and a scratch worktree before the file's tests and removes both after them.
 * `name` names the scratch folder (`outpost-<name>-…`). The fields are read inside tests, once `beforeAll` ran.
 */
export function useApiDouble<Double extends ClosableDouble>(name: string, start: () => Promise<Double>): ApiDoubleFixture<Double> {
  let double: Double | undefined;
  let host: string | undefined;
  let context: SandboxContext | undefined;
  beforeAll(async () => {
    double = await start();
    host = await mkdtemp(join(tmpdir(), `outpost-${name}-`));
    const worktree = join(host, "worktree");
    await mkdir(worktree);
    await writeFile(join(worktree, "README"), "hello\n");
    context = { repository: worktree, directory: worktree, gitDirectories: [], variables: {} };
  });
  afterAll(async () => {
    await double?.close();
    if (host !== undefined) await rm(host, { recursive: true, force: true });
  });
  return {
    get double() {
      return ready(double, "double");
    },
    get context() {
      return ready(context, "context");
    },
  };
}

function ready<Value>(value: Value | undefined, field: string): Value {
  if (value === undefined) throw new Error(`useApiDouble: read ${field} inside a test (it is set in beforeAll).`);
  return value;
}
