import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isOutpostError, OutpostError, type Transport, type TransportEntry } from "@outpost/core";
import { describeTransport, memoryTransport } from "../src/index.js";
import type { SuiteRunner } from "../src/shared/suite-runner.js";

// The suite against the reference in-memory transport, through the default vitest runner.
describeTransport({ name: "memory", create: async () => ({ transport: memoryTransport() }) });

interface CollectedCase {
  readonly title: string;
  readonly body?: () => unknown;
  readonly skipped: boolean;
}

/** A runner that records cases instead of running them, so a test can run the suite and inspect failures. */
function collectingRunner(): { runner: SuiteRunner; cases: CollectedCase[] } {
  const cases: CollectedCase[] = [];
  const path: string[] = [];
  const it = Object.assign(
    (title: string, body: () => unknown) => cases.push({ title: [...path, title].join(" > "), body, skipped: false }),
    {
      skip: (title: string) => cases.push({ title: [...path, title].join(" > "), skipped: true }),
    },
  );
  const runner: SuiteRunner = {
    describe: (title, body) => {
      path.push(title);
      body();
      path.pop();
    },
    it,
    beforeAll: () => undefined,
    afterAll: () => undefined,
  };
  return { runner, cases };
}

async function failingCases(create: () => Transport): Promise<string[]> {
  const { runner, cases } = collectingRunner();
  describeTransport({ name: "subject", create: async () => ({ transport: create() }), runner });
  const failed: string[] = [];
  for (const test of cases) {
    try {
      await test.body?.();
    } catch {
      failed.push(test.title);
    }
  }
  return failed;
}

/** Wraps the reference transport, replacing some methods with a broken behaviour. */
function broken(change: (inner: Transport) => Partial<Transport>): () => Transport {
  return () => {
    const inner = memoryTransport("broken");
    return { ...inner, ...change(inner) };
  };
}

describe("the transport suite catches broken transports", () => {
  it("registers every group and passes the reference transport", async () => {
    const { runner, cases } = collectingRunner();
    describeTransport({ name: "reference", create: async () => ({ transport: memoryTransport() }), runner });
    expect(cases.length).toBeGreaterThanOrEqual(25);
    for (const group of ["conditional writes", "remove", "list", "read", "keys", "races", "abort"]) {
      expect(cases.some((test) => test.title.startsWith(`transport conformance: reference > ${group} > `))).toBe(true);
    }
    expect(await failingCases(() => memoryTransport())).toEqual([]);
  }, 60_000);

  it("an unavailable environment registers one named skip and nothing else", () => {
    const { runner, cases } = collectingRunner();
    describeTransport({
      name: "gated",
      create: async () => ({ transport: memoryTransport() }),
      unavailable: { reason: "no S3 server" },
      runner,
    });
    expect(cases).toEqual([{ title: "transport conformance: gated > unavailable: no S3 server", skipped: true }]);
  });

  it("each case gets a fresh transport and disposes it, also when the case fails", async () => {
    const { runner, cases } = collectingRunner();
    let created = 0;
    let disposed = 0;
    describeTransport({
      name: "counted",
      runner,
      create: async () => {
        created += 1;
        return { transport: memoryTransport(), dispose: async () => void (disposed += 1) };
      },
    });
    for (const test of cases) await test.body?.();
    expect(created).toBe(cases.length);
    expect(disposed).toBe(created);
  }, 60_000);

  it("catches a transport that silently overwrites on create-only writes", async () => {
    const failed = await failingCases(
      broken((inner) => ({
        // "Last writer wins": a create-only write replaces whatever is there.
        write: async (key, bytes, options) => {
          if (options.ifRevision !== null) return inner.write(key, bytes, options);
          for (;;) {
            const current = (await inner.read(key))?.revision ?? null;
            try {
              return await inner.write(key, bytes, { ...options, ifRevision: current });
            } catch (error) {
              // another writer got in between: overwrite it on the next round
              if (!isOutpostError(error, "conflict")) throw error;
            }
          }
        },
      })),
    );
    expect(failed).toContain(
      "transport conformance: subject > conditional writes > a create-only write on an existing key conflicts and keeps the stored bytes",
    );
    expect(failed.some((title) => title.includes("racing create-only writers"))).toBe(true);
  }, 60_000);

  it("catches a transport whose revisions are content hashes (same bytes, same revision)", async () => {
    const failed = await failingCases(() => contentHashTransport());
    expect(failed).toContain(
      "transport conformance: subject > conditional writes > every write returns a fresh revision, also when the bytes are the same",
    );
    expect(failed).toContain(
      "transport conformance: subject > remove > remove never deletes a replacement written after a remove, even with the same bytes",
    );
  }, 60_000);

  it("catches a transport whose remove ignores the revision", async () => {
    const failed = await failingCases(
      broken((inner) => ({
        remove: async (key, options) => {
          const current = await inner.read(key);
          await inner.remove(key, { ...options, ifRevision: current?.revision ?? options.ifRevision });
        },
      })),
    );
    expect(failed).toContain("transport conformance: subject > remove > remove with a stale revision conflicts and keeps the object");
  }, 60_000);

  it("catches a transport that returns only the first page of a listing", async () => {
    const failed = await failingCases(
      broken((inner) => ({
        list: async function* (prefix, options) {
          let count = 0;
          for await (const entry of inner.list(prefix, options)) {
            if (count++ >= 1_000) return;
            yield entry;
          }
        },
      })),
    );
    expect(failed).toEqual([
      "transport conformance: subject > list > list with a prefix returns all 1050 matching keys across pages, and nothing else",
    ]);
  }, 60_000);

  it("catches a transport that ignores maxBytes", async () => {
    const failed = await failingCases(
      broken((inner) => ({ read: (key, options) => inner.read(key, { ...options, maxBytes: undefined }) })),
    );
    expect(failed).toContain("transport conformance: subject > read > read with maxBytes refuses a larger object with code limit");
  }, 60_000);

  it("catches a transport that does not validate keys", async () => {
    const failed = await failingCases(() => unvalidatedTransport());
    expect(failed).toContain(
      "transport conformance: subject > keys > keys that escape or are malformed are refused with code configuration by write, read and remove",
    );
  }, 60_000);

  it("catches a transport that ignores an aborted signal", async () => {
    const failed = await failingCases(
      broken((inner) => ({
        write: (key, bytes, options) => inner.write(key, bytes, { ...options, signal: undefined }),
      })),
    );
    expect(failed).toEqual([
      "transport conformance: subject > abort > an already aborted signal rejects read, write, remove and list with code aborted",
    ]);
  }, 60_000);

  it("catches a check-then-write race (not atomic)", async () => {
    const failed = await failingCases(
      broken((inner) => ({
        write: async (key, bytes, options) => {
          const current = (await inner.read(key))?.revision ?? null;
          if (current !== options.ifRevision) throw new OutpostError("conflict", `${key} changed. Retry.`);
          await new Promise((resolve) => setTimeout(resolve, 1));
          return inner.write(key, bytes, { ...options, ifRevision: (await inner.read(key))?.revision ?? null });
        },
      })),
    );
    expect(failed).toContain(
      "transport conformance: subject > races > 50 racing create-only writers produce exactly one winner and 49 conflicts",
    );
    expect(failed).toContain(
      "transport conformance: subject > races > 50 racing writers with the same current revision produce exactly one winner",
    );
  }, 60_000);
});

/** Revisions derived from the bytes: identical rewrites keep the revision, which the contract forbids. */
function contentHashTransport(): Transport {
  const inner = memoryTransport("content-hash");
  const revisions = new Map<string, { hash: string; inner: string }>();
  const hashOf = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  const outer = (entry: TransportEntry, hash: string): TransportEntry => {
    revisions.set(entry.key, { hash, inner: entry.revision });
    return { ...entry, revision: hash };
  };
  const innerRevision = (key: string, revision: string | null) => {
    if (revision === null) return null;
    const known = revisions.get(key);
    return known && known.hash === revision ? known.inner : revision;
  };
  return {
    specificationVersion: "v1",
    name: "content-hash",
    read: async (key, options) => {
      const stored = await inner.read(key, options);
      return stored && { ...stored, revision: hashOf(stored.bytes) };
    },
    write: async (key, bytes, options) =>
      outer(await inner.write(key, bytes, { ...options, ifRevision: innerRevision(key, options.ifRevision) }), hashOf(bytes)),
    remove: (key, options) => inner.remove(key, { ...options, ifRevision: innerRevision(key, options.ifRevision) ?? "" }),
    list: async function* (prefix, options) {
      for await (const entry of inner.list(prefix, options)) yield { ...entry, revision: revisions.get(entry.key)?.hash ?? entry.revision };
    },
  };
}

/** Correct conditional semantics but no key validation: a map accepts "../x" happily. */
function unvalidatedTransport(): Transport {
  const objects = new Map<string, { bytes: Uint8Array; revision: string }>();
  let counter = 0;
  return {
    specificationVersion: "v1",
    name: "unvalidated",
    read: async (key) => {
      const stored = objects.get(key);
      return (
        stored && { key, revision: stored.revision, size: stored.bytes.length, modifiedAt: new Date().toISOString(), bytes: stored.bytes }
      );
    },
    write: async (key, bytes, options) => {
      if ((objects.get(key)?.revision ?? null) !== options.ifRevision) throw new OutpostError("conflict", "changed. Retry.");
      const revision = String((counter += 1));
      objects.set(key, { bytes, revision });
      return { key, revision, size: bytes.length, modifiedAt: new Date().toISOString() };
    },
    remove: async (key) => void objects.delete(key),
    list: async function* () {
      for (const [key, stored] of objects)
        yield { key, revision: stored.revision, size: stored.bytes.length, modifiedAt: new Date().toISOString() };
    },
  };
}
