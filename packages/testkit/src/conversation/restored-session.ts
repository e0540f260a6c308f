import { mkdir, mkdtemp } from "node:fs/promises";
import { join, posix } from "node:path";
import type { ConversationStore, NativeConversationStore } from "@outpost/core";
import { filesMentioning, RECORDED_ROOT, type FixturePair } from "./session-fixture.js";

/**
 * Checks a conversation restored into `pair.target` from the host, whatever the provider's placement: the
 * target home is read through the lease's file transfers (a remote sandbox's home is no host folder), the
 * native destination must exist there, and no file may still name the source sandbox. Then the store must find
 * the session where it now is: captured again from the target (under another host home) and located there.
 */
export async function checkRestoredSession(store: ConversationStore, pair: FixturePair, capturedFile: string): Promise<void> {
  const { recording, source, target } = pair;
  const copy = await mkdtemp(join(target.base, "restored-home-"));
  await target.lease.download(target.lease.home, copy);
  if (isNative(store)) {
    const destination = store.destination(recording.id, target.lease, capturedFile);
    await target.lease
      .download(destination, join(await mkdtemp(join(target.base, "destination-")), posix.basename(destination)))
      .catch((error: unknown) => {
        throw new Error(`the restored session is not at its destination ${destination}: ${String(error)}`);
      });
  }
  // A remote provider may give every lease the same root and home: those name the target just as well.
  const within = (path: string, folder: string) => `${path}/`.startsWith(`${folder}/`);
  const sourcePaths = [source.lease.root, source.lease.home].filter(
    (path) => !within(target.lease.root, path) && !within(target.lease.home, path),
  );
  const stale = await filesMentioning(copy, [source.base, RECORDED_ROOT, ...sourcePaths]);
  if (stale.length > 0) throw new Error(`restored files still name the source sandbox: ${stale.join(", ")}`);
  const again = { ...target.context(), home: join(target.base, "host-home-again") };
  await mkdir(again.home, { recursive: true });
  const recaptured = await store.capture(recording.id, again);
  const located = await store.locate(recording.id, target.lease.root, again.home);
  if (JSON.stringify(located) !== JSON.stringify(recaptured)) {
    throw new Error(`after the restore, locate returned ${JSON.stringify(located)}, capture ${JSON.stringify(recaptured)}`);
  }
}

export function isNative(store: ConversationStore): store is NativeConversationStore {
  return typeof (store as Partial<NativeConversationStore>).destination === "function";
}
