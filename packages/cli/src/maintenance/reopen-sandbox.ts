import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxLease } from "@outpost/core";
import { findPlugins } from "../plugins/find-plugins.js";
import { loadDescriptor } from "../plugins/load-descriptor.js";

/**
 * Leases again a sandbox a dead dispatch left (`outpost clean`, `outpost recover`), so its commits come back
 * before it is removed: through the installed descriptor of the provider its record names, when that provider
 * takes a `sandbox` option (an existing sandbox to lease). Asked to retain it, so releasing this lease stops the
 * sandbox at most and the clean removes it only once the work is home. Undefined when the provider is not
 * installed or cannot reopen sandboxes; credentials come from the environment, as for `removeSandbox`.
 */
export async function reopenSandbox(id: string, provider: string, root?: string): Promise<SandboxLease | undefined> {
  // A provider's modes name their sandboxes `<name>-<mode>`: the mode is passed back to it.
  const plugin = findPlugins("provider").find((candidate) => candidate.name === provider || provider.startsWith(`${candidate.name}-`));
  if (plugin === undefined) return undefined;
  const descriptor = await loadDescriptor(plugin);
  const takes = (name: string) => descriptor.options.some((option) => option.name === name);
  // Without `retain`, releasing the lease would remove the sandbox even when its work could not be brought back.
  if (!takes("sandbox") || !takes("retain")) return undefined;
  const mode = provider === plugin.name ? undefined : provider.slice(plugin.name.length + 1);
  const made = await descriptor.createProvider({
    sandbox: id,
    retain: true,
    ...(mode !== undefined && takes("mode") ? { mode } : {}),
    ...(root !== undefined && takes("root") ? { root } : {}),
  });
  // Nothing of the host is handed over: an empty directory stands for the worktree (nothing is uploaded).
  const empty = await mkdtemp(join(tmpdir(), "outpost-reopen-"));
  try {
    return await made.acquire({ repository: empty, directory: empty, gitDirectories: [], variables: {} });
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
}
