import type { SandboxProvider } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { dockerAgentsUnavailable } from "./docker-agent-provider.js";

/** One way to run an agent scenario: the provider of the first sandbox and of the second. */
export interface ProviderVariant {
  readonly name: string;
  readonly unavailable?: string;
  /** Provider of the first sandbox, and of the second (another home and workspace path). */
  readonly first: () => SandboxProvider;
  readonly second: () => SandboxProvider;
  /** Host placement: conversation stores may read the sandbox files directly; strace can watch the CLI. */
  readonly host: boolean;
}

/** The local provider, then Docker with the given container factories (a named skip without an engine). */
export function providerVariants(docker: {
  readonly first: () => SandboxProvider;
  readonly second: () => SandboxProvider;
}): ProviderVariant[] {
  const unavailable = dockerAgentsUnavailable();
  return [
    {
      name: "local provider",
      first: () => localProvider({ home: "private" }),
      second: () => localProvider({ home: "private" }),
      host: true,
    },
    { name: "Docker provider", ...(unavailable === undefined ? {} : { unavailable }), ...docker, host: false },
  ];
}
