import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type {
  AgentAdapter,
  Command,
  CommandResult,
  ConversationStore,
  SandboxLease,
  SandboxProvider,
  TransferOptions,
} from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { dispatch } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// Plugins written as the reference pages show them: the page signatures have no specificationVersion, and an
// omitted version means the version the pages describe. A lease (page 002), its provider, an agent and its
// store, none declaring one, run a dispatch and its resume.
const scratch = mkdtempSync(join(tmpdir(), "outpost-page-signatures-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A lease with exactly the page's members, each doing its work through a local lease. */
function pageLease(inner: SandboxLease): SandboxLease {
  const lease: SandboxLease = {
    fileTransfers: inner.fileTransfers,
    liveInput: inner.liveInput,
    root: inner.root,
    home: inner.home,
    invoke: (command: Command): Promise<CommandResult> => inner.invoke(command),
    upload: (source: string, destination: string, options?: TransferOptions): Promise<void> => inner.upload(source, destination, options),
    download: (source: string, destination: string, options?: TransferOptions): Promise<void> =>
      inner.download(source, destination, options),
    release: (): Promise<void> => inner.release(),
  };
  return lease;
}

function withoutVersion<T extends { readonly specificationVersion?: "v1" }>(plugin: T): T {
  const { specificationVersion: _omitted, ...rest } = plugin;
  return rest as T;
}

describe("plugins written as the pages show them", () => {
  it("a lease, a provider, an agent and a store without specificationVersion run a dispatch and its resume", async () => {
    const local = localProvider({ home: "private" });
    const leases: SandboxLease[] = [];
    const provider: SandboxProvider = {
      name: "page-provider",
      placement: "host",
      acquire: async (context) => {
        const lease = pageLease(await local.acquire(context));
        leases.push(lease);
        return lease;
      },
    };
    const pageAgent = (behaviour?: Record<string, string>): AgentAdapter => {
      const script = scriptAgent({ directory: scratch, ...(behaviour ? { behaviour } : {}) });
      return { ...withoutVersion(script), storage: withoutVersion(script.storage as ConversationStore) };
    };
    const agent = pageAgent({ FILE: "page.txt", CONTENT: "from the page" });
    expect([agent, agent.storage, provider].map((plugin) => "specificationVersion" in plugin!)).toEqual([false, false, false]);

    const first = await dispatch({
      agent,
      sandboxProvider: provider,
      brief: "first task",
      repository: scratchRepository("outpost-page-"),
      conversationHome: mkdtempSync(join(scratch, "home-")),
    });
    expect(first.commits).toHaveLength(1);
    const second = await first.resume("second task", { agent: pageAgent() });
    expect(second.text).toContain('saw 1 earlier prompt(s): ["first task"]');
    expect(leases).toHaveLength(2);
    expect(leases.every((lease) => !("specificationVersion" in lease))).toBe(true);
  }, 60_000);
});
