import { OutpostError, type SandboxProvider } from "@outpost/core";
import type { DispatchOptions, ProvidedOptions } from "../dispatch-options.js";

/** The package whose provider dispatch() uses when none is given (the reference page's default). */
export const DEFAULT_PROVIDER_PACKAGE = "@outpost/provider-docker";

type ProviderModule = { readonly dockerProvider?: (config?: Record<string, never>) => SandboxProvider };
export type ProviderImporter = () => Promise<ProviderModule>;

// An optional peer, imported only when needed, so the engine installs and runs without Docker.
const importDockerProvider: ProviderImporter = () => import("@outpost/provider-docker");

/**
 * Fills in `sandboxProvider` when the caller left it out: the Docker provider when its package is
 * installed, otherwise a `configuration` error naming the package to install.
 */
export async function withDefaultProvider(
  options: DispatchOptions,
  importer: ProviderImporter = importDockerProvider,
): Promise<ProvidedOptions> {
  if (!options || typeof options !== "object" || options.sandboxProvider !== undefined) return options as ProvidedOptions;
  let module: ProviderModule;
  try {
    module = await importer();
  } catch (cause) {
    if (!isModuleMissing(cause)) throw cause;
    throw new OutpostError(
      "configuration",
      `No sandboxProvider was given and the default, ${DEFAULT_PROVIDER_PACKAGE}, is not installed. ` +
        `Install it (npm install ${DEFAULT_PROVIDER_PACKAGE}) or pass sandboxProvider (for example localProvider() from @outpost/provider-local).`,
      { cause },
    );
  }
  if (typeof module.dockerProvider !== "function")
    throw new OutpostError(
      "configuration",
      `${DEFAULT_PROVIDER_PACKAGE} does not export dockerProvider(): its version does not match this engine. Install a matching version or pass sandboxProvider.`,
    );
  return { ...options, sandboxProvider: module.dockerProvider() };
}

function isModuleMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}
