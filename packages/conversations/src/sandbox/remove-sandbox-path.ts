import type { SandboxLease } from "@outpost/core";
import { removeProgram } from "../transcript/transcript-programs.js";
import { runSandboxScript } from "./sandbox-script.js";

/** Best-effort removal of a staging file or folder in the sandbox; cleanup never hides the real error. */
export async function removeSandboxPath(lease: SandboxLease, path: string): Promise<void> {
  await runSandboxScript(lease, removeProgram, { path }, { what: `remove ${path}` }).catch(() => undefined);
}
