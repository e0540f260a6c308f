import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { ENV_FILE, findRepository, readEnvFile } from "@outpost/dispatch";

/**
 * The checkout's `.outpost/.env`, read as `outpost run` reads it (dispatch's loader: host-owned, no link,
 * parsed strictly). Names only in the report: values (keys among them) are never printed.
 */
export interface EnvFileReport {
  readonly path: string;
  /** `ok` (read), `absent`, or `refused` (a run refuses it too, with the same message). */
  readonly status: "ok" | "absent" | "refused";
  /** Names of the variables it sets, in file order. */
  readonly variables: readonly string[];
  readonly problem?: string;
}

/** The report and the variables every agent command of a run would get from the file (none outside a checkout). */
export async function envFileReport(directory: string): Promise<{ report?: EnvFileReport; variables: Record<string, string> }> {
  const root = await findRepository(directory).then(
    (repository) => repository.root,
    () => undefined,
  );
  if (root === undefined) return { variables: {} };
  const path = join(root, ENV_FILE);
  try {
    const variables = await readEnvFile(root);
    const present = (await lstat(path).catch(() => undefined)) !== undefined;
    return { report: { path, status: present ? "ok" : "absent", variables: Object.keys(variables) }, variables };
  } catch (error) {
    if (!OutpostError.isInstance(error)) throw error;
    return { report: { path, status: "refused", variables: [], problem: error.message }, variables: {} };
  }
}
