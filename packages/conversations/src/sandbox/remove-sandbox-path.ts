import type { SandboxLease } from "@outpost/core";
import { runSandboxScript } from "./sandbox-script.js";

/** Best-effort removal of a staging file or folder in the sandbox; cleanup never hides the real error. */
export async function removeSandboxPath(lease: SandboxLease, path: string): Promise<void> {
  await runSandboxScript(lease, "remove", { path }, { what: `remove ${path}` }).catch(() => undefined);
}
