import type { Redis } from "ioredis";
import type { SandboxLease, SandboxProvider } from "@outpost/core";

/** Where each attempt at a job names the sandbox it holds: one hash per job, one field per fence token. */
function sandboxesKey(queueName: string, jobId: string): string {
  // The job's hash tag, as the fence keys: one slot on a Redis cluster.
  return `outpost:{${queueName}:${jobId}}:sandboxes`;
}

interface HeldSandbox {
  readonly provider: string;
  readonly sandbox: string;
}

/**
 * The sandboxes of a job's attempts, shared by every worker. Its rule: **an attempt names its sandbox as soon as
 * it has one and forgets it once its dispatch has returned (the lease released)**, so what an attempt finds
 * named under an earlier token belongs to an attempt that died or stalled, and the one that took the job over
 * removes it, wherever the dead worker ran, instead of leaving it until that worker restarts.
 */
export class AttemptSandboxes {
  readonly #key: string;

  constructor(
    private readonly redis: Redis,
    queueName: string,
    jobId: string,
    private readonly token: number,
  ) {
    this.#key = sandboxesKey(queueName, jobId);
  }

  /** `provider`, whose leases this attempt names when they are acquired. */
  recording(provider: SandboxProvider): SandboxProvider {
    const acquire = async (context: Parameters<SandboxProvider["acquire"]>[0]): Promise<SandboxLease> => {
      const lease = await provider.acquire(context);
      if (lease.sandboxId !== undefined) {
        const held: HeldSandbox = { provider: provider.name, sandbox: lease.sandboxId };
        // Best effort: without the name, the dead worker's own restart still reaps it (its activity record).
        await this.redis.hset(this.#key, String(this.token), JSON.stringify(held)).catch(() => undefined);
      }
      return lease;
    };
    // Every field the contract has, copied (a prototype or getters of the original are not relied on).
    const { specificationVersion, name, placement, capabilities, variables } = provider;
    return {
      specificationVersion,
      name,
      placement,
      ...(capabilities === undefined ? {} : { capabilities }),
      ...(variables === undefined ? {} : { variables }),
      acquire,
    };
  }

  /** This attempt's dispatch returned: its lease is released, nothing is left to reap. */
  async forget(): Promise<void> {
    await this.redis.hdel(this.#key, String(this.token));
  }

  /** Removes the sandboxes earlier attempts named; returns what was done. Never throws: a failure is reported. */
  async reapEarlier(remove: (id: string, provider: string) => Promise<void>): Promise<string[]> {
    const done: string[] = [];
    let held: Record<string, string>;
    try {
      held = await this.redis.hgetall(this.#key);
    } catch (error) {
      return [`could not read the sandboxes of earlier attempts: ${(error as Error).message}`];
    }
    for (const [field, value] of Object.entries(held)) {
      if (!(Number(field) < this.token)) continue;
      const sandbox = parse(value);
      try {
        if (sandbox !== undefined) await remove(sandbox.sandbox, sandbox.provider);
        await this.redis.hdel(this.#key, field);
        if (sandbox !== undefined) done.push(`removed ${sandbox.provider} sandbox ${sandbox.sandbox.slice(0, 12)} of fence ${field}`);
      } catch (error) {
        const what = `${sandbox?.provider} sandbox ${sandbox?.sandbox.slice(0, 12)} of fence ${field}`;
        done.push(`could not remove ${what}: ${(error as Error).message}`);
      }
    }
    return done;
  }
}

function parse(value: string): HeldSandbox | undefined {
  try {
    const held = JSON.parse(value) as Partial<HeldSandbox>;
    return typeof held.provider === "string" && typeof held.sandbox === "string"
      ? { provider: held.provider, sandbox: held.sandbox }
      : undefined;
  } catch {
    return undefined;
  }
}
