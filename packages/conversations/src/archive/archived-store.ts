import { access } from "node:fs/promises";
import type { ConversationContext, ConversationRecord, NativeConversationStore, SandboxLease, Transport } from "@outpost/core";
import { OutpostError, assertSpecificationVersion, assertTransportKey, isOutpostError } from "@outpost/core";
import { assertConversationId } from "../conversation-id.js";
import { isPortableConversationStore, type PortableConversationStore } from "./portable-store.js";

export interface ArchivedStoreOptions {
  /** Key prefix in the transport, e.g. a repository or team name. */
  readonly namespace: string;
  /** Largest archived conversation read back, in bytes (default 1 GiB). */
  readonly maxBytes?: number;
}

/**
 * Wraps a store so every captured conversation is also saved as one Transport object
 * (`<namespace>/<format>/<id>`), and `locate` fetches it from there: a conversation captured on one
 * machine or provider continues on another. Writes are conditional: a capture replaces only the revision this
 * store located or restored (or creates the object when it knows none), so two racing captures never clobber
 * each other; the loser gets code `conflict` and keeps its copy on the host.
 */
export function archivedStore(
  inner: NativeConversationStore,
  transport: Transport,
  options: ArchivedStoreOptions,
): PortableConversationStore {
  assertSpecificationVersion(inner, "conversation store");
  assertSpecificationVersion(transport, "transport");
  if (!isPortableConversationStore(inner)) {
    throw new OutpostError(
      "configuration",
      `The ${inner.name} store cannot be archived: it has no pack/unpack. Wrap a store from @outpost/conversations or an agent package.`,
    );
  }
  const store: PortableConversationStore = inner;
  const namespace = options.namespace;
  assertTransportKey(namespace);
  const maxBytes = options.maxBytes ?? 1024 * 1024 * 1024;
  const format = store.format;
  const keyOf = (id: string) => assertTransportKey(`${namespace}/${format}/${assertConversationId(id)}`);
  // The revision each conversation was last restored from or archived at, per store instance.
  const bases = new Map<string, string>();

  async function fetch(id: string, repository: string, home: string | undefined, revision?: string): Promise<ConversationRecord> {
    const key = keyOf(id);
    const object = await transport.read(key, { maxBytes });
    if (!object) {
      throw new OutpostError(
        "session",
        `No archived ${format} conversation ${id} in ${transport.name} (${key}). Capture it through this store first.`,
        { details: { id, key } },
      );
    }
    if (revision !== undefined && object.revision !== revision) {
      throw new OutpostError(
        "conflict",
        `The archived ${format} conversation ${id} was replaced since it was located (revision ${revision} → ${object.revision}). Locate it again to continue from the newest turn.`,
        { details: { id, key } },
      );
    }
    const record = await store.unpack(id, object.bytes, repository, home);
    bases.set(id, object.revision);
    return { ...record, reference: { key, revision: object.revision } };
  }

  return {
    specificationVersion: "v1",
    name: `transport:${namespace}:${format}`,
    format,
    directory: (repository: string, home?: string) => store.directory(repository, home),
    destination: (id: string, sandbox: SandboxLease, original: string) => store.destination(id, sandbox, original),
    locate: (id, repository, home) => fetch(id, repository, home),
    ...(store.prepareCapture ? { prepareCapture: (context: ConversationContext) => store.prepareCapture!(context) } : {}),
    async capture(id: string, context: ConversationContext): Promise<ConversationRecord> {
      const record = await store.capture(id, context);
      const key = keyOf(id);
      const bytes = await store.pack(record);
      // Only the revision this conversation was continued from may be replaced; unknown means create-only.
      const base = bases.get(id) ?? null;
      try {
        const entry = await transport.write(key, bytes, { ifRevision: base, ...(context.signal ? { signal: context.signal } : {}) });
        bases.set(id, entry.revision);
        return { ...record, reference: { key, revision: entry.revision } };
      } catch (error) {
        if (isOutpostError(error, "conflict")) {
          throw new OutpostError(
            "conflict",
            `Another capture of ${format} conversation ${id} was archived in ${transport.name} first (or this store never located the archived one); ` +
              `this capture was kept only on the host (${record.file}). Locate the conversation again and continue from the newest turn.`,
            { cause: error, details: { id, key } },
          );
        }
        throw error;
      }
    },
    async restore(record: ConversationRecord, context: ConversationContext): Promise<void> {
      let local = record;
      const present = await access(record.file).then(
        () => true,
        () => false,
      );
      if (record.reference && !present) local = await fetch(record.id, context.repository, context.home, record.reference.revision);
      if (record.reference) bases.set(record.id, record.reference.revision);
      await store.restore(local, context);
    },
    pack: (record) => store.pack(record),
    unpack: (id, bytes, repository, home) => store.unpack(id, bytes, repository, home),
  };
}
