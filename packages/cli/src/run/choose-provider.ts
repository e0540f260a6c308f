import { connect } from "node:net";
import { OutpostError, type SandboxProvider } from "@outpost/core";

export interface ProviderChoice {
  readonly provider?: "local" | "docker";
  /** Local provider: pass the whole invoking environment instead of the allow-list. */
  readonly inheritEnvironment?: boolean;
  readonly image?: string;
  readonly network?: string;
  readonly user?: { readonly uid: number; readonly gid: number };
  readonly volumes?: ReadonlyArray<{ source: string; target: string; readOnly: boolean }>;
  /** Docker: overrides of the provider's default limits. */
  readonly limits?: { readonly cpus?: number; readonly memoryMb?: number; readonly pidsLimit?: number; readonly writableRootFilesystem?: boolean };
}

/** The provider named on the command line, else Docker when an engine answers, else an explanation. */
export async function chooseProvider(choice: ProviderChoice): Promise<SandboxProvider> {
  const name = choice.provider ?? ((await dockerReachable()) ? "docker" : undefined);
  if (name === undefined) {
    throw new OutpostError("configuration", "No Docker engine is reachable (DOCKER_HOST or /var/run/docker.sock), so there is no default sandbox. Start Docker, or pass --provider local to run the agent directly on this machine.");
  }
  if (name === "local") {
    const { localProvider } = await import("@outpost/provider-local");
    return localProvider(choice.inheritEnvironment ? { environment: { inherit: "all" } } : {});
  }
  if (choice.inheritEnvironment) {
    throw new OutpostError("configuration", "--inherit-environment applies to --provider local only: a container never gets your environment. Pass the variables the agent needs through the agent's own options instead.");
  }
  const { dockerProvider } = await import("@outpost/provider-docker");
  return dockerProvider({
    ...(choice.image ? { image: choice.image } : {}),
    ...(choice.network ? { network: choice.network } : {}),
    // As root, your worktrees are root's: the container runs as you (capabilities dropped) so it can write them.
    ...(choice.user ? { user: choice.user } : process.getuid?.() === 0 ? { user: { uid: 0, gid: 0 } } : {}),
    ...(choice.volumes ? { volumes: choice.volumes } : {}),
    ...(choice.limits?.cpus ? { cpus: choice.limits.cpus } : {}),
    ...(choice.limits?.memoryMb ? { memoryMb: choice.limits.memoryMb } : {}),
    ...(choice.limits?.pidsLimit ? { pidsLimit: choice.limits.pidsLimit } : {}),
    ...(choice.limits?.writableRootFilesystem ? { readOnlyRootFilesystem: false } : {}),
  });
}

/** True when the Docker socket accepts a connection within 300 ms. */
export function dockerReachable(): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  const path = host?.startsWith("unix://") ? host.slice("unix://".length) : host ? undefined : "/var/run/docker.sock";
  const url = host && !path ? new URL(host.replace(/^tcp:/, "http:")) : undefined;
  return new Promise((done) => {
    const socket = path ? connect({ path }) : connect({ host: url!.hostname, port: Number(url!.port || 2375) });
    const finish = (value: boolean): void => {
      socket.destroy();
      done(value);
    };
    socket.setTimeout(300, () => finish(false));
    socket.once("connect", () => finish(true));
    socket.once("error", () => finish(false));
  });
}
