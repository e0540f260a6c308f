import { randomBytes } from "node:crypto";
import { isAbsolute, posix } from "node:path";
import { OutpostError, throwIfAborted } from "@outpost/core";
import type { SandboxContext, SandboxLease, SandboxProvider } from "@outpost/core";
import { Sandbox } from "@vercel/sandbox";
import { INSTALL_SCRIPTS, scriptArguments } from "./installed-scripts.js";
import { mapVercelError } from "./map-vercel-error.js";
import { isPlainEmptyDirectory, OperationGuard } from "@outpost/plugin-utils";
import { vercelCredentials, type VercelProviderConfig } from "./vercel-provider-config.js";
import { unlessAborted } from "./unless-aborted.js";
import { vercelFetch } from "./vercel-api-url.js";
import { VercelLease } from "./vercel-lease.js";

/** Capabilities every Vercel lease has. */
export const VERCEL_CAPABILITIES = Object.freeze({ liveInput: true, fileTransfers: true, uploadBatch: true });

/** Reports the sandbox user's HOME and makes sure root and the lease's scratch directory exist. */
const SETUP_SCRIPT = `mkdir -p -- "$1" "$2" && chmod 700 "$2" || exit 1
${INSTALL_SCRIPTS} || exit 1
printf %s "$HOME"`;

/** A SandboxProvider that runs each lease in its own Vercel Sandbox (a Firecracker microVM) through @vercel/sandbox. */
export function vercelProvider(config: VercelProviderConfig = {}): SandboxProvider {
  return {
    specificationVersion: "v1",
    name: "vercel",
    placement: "remote",
    capabilities: { liveInput: VERCEL_CAPABILITIES.liveInput, fileTransfers: VERCEL_CAPABILITIES.fileTransfers },
    ...(config.variables === undefined ? {} : { variables: config.variables }),
    acquire: (context) => acquire(config, context),
  };
}

async function acquire(config: VercelProviderConfig, context: SandboxContext): Promise<SandboxLease> {
  throwIfAborted(context.signal, "Acquiring a Vercel lease");
  if (typeof context.directory !== "string" || !isAbsolute(context.directory)) {
    throw new OutpostError(
      "configuration",
      `The sandbox context directory ${JSON.stringify(context.directory)} is not absolute. Pass an absolute host path.`,
    );
  }
  const guard = new OperationGuard({ signal: context.signal }, "Acquiring a Vercel lease");
  let sandbox: Sandbox | undefined;
  let created = false;
  try {
    sandbox = await open(config, guard.signal);
    created = config.sandbox === undefined;
    guard.check();
    const root = config.root ?? sandbox.cwd;
    // Short and unguessable: every transfer command names it (a re-sync's bytes are mostly such words).
    const scratch = posix.join("/tmp", `outpost-${randomBytes(6).toString("hex")}`);
    const setup = await sandbox.runCommand({
      cmd: "/bin/sh",
      args: ["-c", SETUP_SCRIPT, "outpost-setup", root, scratch, ...scriptArguments()],
      signal: guard.signal,
    });
    if (setup.exitCode !== 0) {
      throw new OutpostError(
        "provider",
        `Could not prepare the Vercel sandbox ${sandbox.name}: creating ${root} failed (${(await setup.stderr()).trim()}). Choose a writable root.`,
        { details: { root } },
      );
    }
    const printed = (await setup.stdout()).trim();
    const home = printed || "/home/vercel-sandbox";
    // Every command gets HOME = home. The sandbox's own HOME is that already when the setup printed it, so it
    // travels only when it has to (unset in the sandbox, or set otherwise by the provider or the context).
    const { HOME: asked, ...given } = { ...config.variables, ...context.variables };
    const variables = printed === "" || asked !== undefined ? { ...given, HOME: home } : given;
    const lease = new VercelLease({ sandbox, root, home, scratch, variables, retain: config.retain === true });
    // Remote placement: root starts as a copy of the worktree (links kept, nothing outside it followed).
    // The engine hands an empty one (the repository follows as a bundle): setup already made root.
    if (!(await isPlainEmptyDirectory(context.directory))) await lease.upload(context.directory, root, { signal: guard.signal });
    guard.check();
    return lease;
  } catch (error) {
    if (sandbox !== undefined && created) await sandbox.delete().catch(() => undefined);
    throw guard.error ?? mapVercelError(error, "acquire a Vercel sandbox");
  } finally {
    guard.dispose();
  }
}

/** A new sandbox from the create parameters, or the named existing one (resumed when stopped). */
async function open(config: VercelProviderConfig, signal: AbortSignal): Promise<Sandbox> {
  const credentials = vercelCredentials(config);
  const fetch = vercelFetch(config);
  const common = { ...credentials, fetch, signal };
  if (config.sandbox !== undefined) {
    return Sandbox.get({ ...common, name: config.sandbox, resume: true }).catch((error: unknown) => {
      throw mapVercelError(error, `reuse the Vercel sandbox ${JSON.stringify(config.sandbox)}`);
    });
  }
  const parameters = {
    ...config.create,
    ...(config.networkPolicy === undefined ? {} : { networkPolicy: config.networkPolicy }),
    ...(config.retain === true ? { persistent: true } : {}),
    ...credentials,
    fetch,
  };
  // Not aborted with the request: the platform may create the sandbox anyway, so an abort answers at
  // once and the sandbox that still arrives is deleted.
  const creating = Sandbox.create(parameters as Parameters<typeof Sandbox.create>[0]).catch((error: unknown) => {
    throw mapVercelError(error, "create a Vercel sandbox");
  });
  return unlessAborted(creating, signal, (sandbox) => sandbox.delete());
}
