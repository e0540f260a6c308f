import { access, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError, type ConversationContext, type ConversationRecord, type ConversationStore } from "@outpost/core";

export const SCRIPT_AGENT_FORMAT = "script-agent";

/** Host directory holding captured script-agent conversations. */
export function scriptAgentConversations(repository: string, home?: string): string {
  return join(home ?? repository, ".outpost", "conversations", SCRIPT_AGENT_FORMAT);
}

/** Captures the script agent's session file from the sandbox home and restores it into a new one. */
export function scriptAgentStore(): ConversationStore {
  const sandboxFile = (home: string, id: string): string => `${home}/.script-agent/sessions/${id}.jsonl`;
  return {
    specificationVersion: "v1",
    name: SCRIPT_AGENT_FORMAT,
    async locate(id: string, repository: string, home?: string): Promise<ConversationRecord> {
      assertId(id);
      const file = join(scriptAgentConversations(repository, home), `${id}.jsonl`);
      try {
        await access(file);
      } catch {
        throw new OutpostError(
          "session",
          `No captured script-agent conversation ${id} under ${scriptAgentConversations(repository, home)}. Check the id or conversationHome.`,
          { details: { id } },
        );
      }
      return { id, file, format: SCRIPT_AGENT_FORMAT };
    },
    async capture(id: string, context: ConversationContext): Promise<ConversationRecord> {
      assertId(id);
      const directory = scriptAgentConversations(context.repository, context.home);
      await mkdir(directory, { recursive: true });
      const file = join(directory, `${id}.jsonl`);
      const source = sandboxFile(context.sandbox.home, id);
      await context.sandbox.download(source, file, { signal: context.signal }).catch(async (error: unknown) => {
        // As the real stores do: a conversation the agent never saved is code session.
        const probe = await context.sandbox.invoke({ executable: "test", arguments: ["-f", source], signal: context.signal });
        if (probe.status === 0) throw error;
        throw new OutpostError("session", `The script agent saved no conversation ${id} (no ${source} in the sandbox).`, {
          details: { id, absent: true },
        });
      });
      return { id, file, format: SCRIPT_AGENT_FORMAT };
    },
    async restore(record: ConversationRecord, context: ConversationContext): Promise<void> {
      assertId(record.id);
      await context.sandbox.upload(record.file, sandboxFile(context.sandbox.home, record.id), { signal: context.signal });
    },
  };
}

function assertId(id: string): void {
  if (!/^[A-Za-z0-9-]{1,80}$/.test(id)) {
    throw new OutpostError(
      "session",
      `Invalid script-agent conversation id ${JSON.stringify(id)}. Use the id an earlier result reported.`,
      { details: { id } },
    );
  }
}
