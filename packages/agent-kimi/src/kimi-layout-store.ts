import { OutpostError, type ConversationContext, type ConversationRecord, type SandboxLease } from "@outpost/core";
import type { PortableConversationStore } from "@outpost/conversations";

/**
 * Kimi Code's store first, the older Kimi CLI's second: a capture takes the layout the session is present in
 * (the first when both hold it), and every record is restored, located and packed by the store of its format.
 * Its own format is the first's: conversations it names by default are Kimi Code's.
 */
export function eitherLayoutStore(first: PortableConversationStore, second: PortableConversationStore): PortableConversationStore {
  const byFormat = (format: string) => (format === second.format ? second : first);
  const absent = (error: unknown) =>
    OutpostError.isInstance(error) && error.code === "session" && (error.details as { absent?: unknown } | undefined)?.absent === true;
  return {
    specificationVersion: "v1",
    name: first.name,
    format: first.format,
    directory: (repository: string, home?: string) => first.directory(repository, home),
    destination: (id: string, sandbox: SandboxLease, original: string) => first.destination(id, sandbox, original),
    async locate(id: string, repository: string, home?: string): Promise<ConversationRecord> {
      return first.locate(id, repository, home).catch((error: unknown) => {
        if (!OutpostError.isInstance(error) || error.code !== "session") throw error;
        return second.locate(id, repository, home).catch(() => Promise.reject(error));
      });
    },
    prepareCapture(context: ConversationContext): void {
      first.prepareCapture?.(context);
    },
    async capture(id: string, context: ConversationContext): Promise<ConversationRecord> {
      return first.capture(id, context).catch((error: unknown) => {
        if (!absent(error)) throw error;
        return second.capture(id, context).catch((other: unknown) => Promise.reject(absent(other) ? error : other));
      });
    },
    restore: (record: ConversationRecord, context: ConversationContext) => byFormat(record.format).restore(record, context),
    pack: (record: ConversationRecord) => byFormat(record.format).pack(record),
    async unpack(id: string, bytes: Uint8Array, repository: string, home?: string): Promise<ConversationRecord> {
      // A packed bundle names its format: the store of that format writes it back.
      const format = /"format"\s*:\s*"([^"]+)"/.exec(Buffer.from(bytes.subarray(0, 4096)).toString("utf8"))?.[1];
      return byFormat(format ?? first.format).unpack(id, bytes, repository, home);
    },
  };
}
