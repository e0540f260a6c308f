import { readFile } from "node:fs/promises";
import type { ConversationStore } from "@outpost/core";
import { vitestRunner, type SuiteRunner } from "../shared/suite-runner.js";
import { expectRefused } from "./expect-refused.js";
import { HOSTILE_SESSION_IDS } from "./hostile-session-ids.js";
import { checkRestoredSession } from "./restored-session.js";
import { fixturePair, type FixturePair, type FixturePairOptions } from "./session-fixture.js";

export interface DescribeConversationStoreOptions extends FixturePairOptions {
  readonly store: ConversationStore;
  /** A recorded session folder (see `fixturePair`). */
  readonly fixture: string;
  readonly runner?: SuiteRunner;
  /**
   * Puts the recorded session into the source sandbox when copying the fixture's `home/` is not enough,
   * e.g. a CLI that keeps sessions in a database imports the recorded export there.
   */
  readonly seed?: (pair: FixturePair) => Promise<void>;
}

export { HOSTILE_SESSION_IDS };

/**
 * Conformance for an agent's conversation store: a recorded session captured in one sandbox is located
 * on the host, restored into another sandbox (other workspace, other home) of the author's provider, and
 * nothing there still names the sandbox it came from; captured again from there, it is located again. Every
 * check of a sandbox goes through its lease, so any placement works (host, mounted, remote). Hostile ids are
 * refused with OutpostErrors.
 */
export function describeConversationStore(options: DescribeConversationStoreOptions): void {
  const runner = options.runner ?? vitestRunner;
  const { store } = options;
  runner.describe(`conversation store conformance: ${store.name}`, () => {
    runner.it(
      "capture → locate → restore into another workspace and home leaves no stale path → capture there → locate",
      async () => {
        const pair = await seededPair(options);
        try {
          const { recording, source, target } = pair;
          const record = await store.capture(recording.id, source.context());
          const located = await store.locate(recording.id, source.lease.root, source.context().home);
          if (JSON.stringify(located) !== JSON.stringify(record))
            throw new Error(`locate returned ${JSON.stringify(located)}, capture ${JSON.stringify(record)}`);
          await store.restore(located, target.context());
          await checkRestoredSession(store, pair, record.file);
        } finally {
          await pair.dispose();
        }
      },
      60_000,
    );

    if (store.prepareCapture)
      runner.it(
        "prepareCapture before a capture changes nothing it captures",
        async () => {
          const pair = await seededPair(options);
          try {
            const { recording, source } = pair;
            const plain = await store.capture(recording.id, source.context());
            const bytes = await readFile(plain.file);
            store.prepareCapture!(source.context());
            const prepared = await store.capture(recording.id, source.context());
            if (JSON.stringify(prepared) !== JSON.stringify(plain))
              throw new Error(`capture after prepareCapture returned ${JSON.stringify(prepared)}, without it ${JSON.stringify(plain)}`);
            if (!bytes.equals(await readFile(prepared.file)))
              throw new Error(`capture after prepareCapture wrote other bytes to ${prepared.file}`);
          } finally {
            await pair.dispose();
          }
        },
        60_000,
      );

    runner.it(
      "refuses hostile session ids on capture and locate with OutpostErrors",
      async () => {
        const pair = await fixturePair(options.fixture, options); // refused before any session is read: no seed needed
        try {
          for (const id of HOSTILE_SESSION_IDS) {
            await expectRefused(`capture(${JSON.stringify(id)})`, () => store.capture(id, pair.source.context()));
            await expectRefused(`locate(${JSON.stringify(id)})`, () =>
              store.locate(id, pair.source.lease.root, pair.source.context().home),
            );
          }
        } finally {
          await pair.dispose();
        }
      },
      60_000,
    );
  });
}

/** A fixture pair whose source holds the recorded session (seeded when the author says how). */
async function seededPair(options: DescribeConversationStoreOptions): Promise<FixturePair> {
  const pair = await fixturePair(options.fixture, options);
  try {
    await options.seed?.(pair);
    return pair;
  } catch (error) {
    await pair.dispose();
    throw error;
  }
}
