import assert from "node:assert/strict";
import type { Transport, TransportEntry } from "@outpost/core";
import { bytesOf, collect, expectEntry } from "./transport-assertions.js";
import { withTransport, type TransportSuiteContext } from "./transport-suite-context.js";

/** More than one S3 page (1,000 keys), so a transport that forgets to page is caught. */
const MANY = 1_050;
const WRITERS = 25;

/** Listing by prefix: every matching entry once, with the revision and size of the last write. */
export function transportListTests(context: TransportSuiteContext): void {
  const { it } = context.runner;

  it(
    `list with a prefix returns all ${MANY} matching keys across pages, and nothing else`,
    () =>
      withTransport(context, async (transport) => {
        const written = await writeMany(transport, MANY);
        await transport.write("many-sibling/outside.txt", bytesOf("no"), { ifRevision: null });
        await transport.write("elsewhere.txt", bytesOf("no"), { ifRevision: null });

        const listed = await collect(transport.list("many/"));
        assert.equal(listed.length, MANY, "number of listed entries");
        const byKey = new Map(listed.map((entry) => [entry.key, entry]));
        assert.equal(byKey.size, MANY, "a key was listed twice");
        for (const entry of written) {
          const found = byKey.get(entry.key);
          assert.ok(found, `${entry.key} is missing from the listing`);
          expectEntry(found, entry.key, entry.size);
          assert.equal(found.revision, entry.revision, `${entry.key}: listed revision differs from the write's`);
        }
      }),
    120_000,
  );

  it("a prefix matches by string, not only by whole segments", () =>
    withTransport(context, async (transport) => {
      for (const key of ["logs/2024-01.txt", "logs/2024-02.txt", "logs/2025-01.txt", "logs2/x.txt", "log.txt"]) {
        await transport.write(key, bytesOf(key), { ifRevision: null });
      }
      assert.deepEqual(await listedKeys(transport, "logs/2024"), ["logs/2024-01.txt", "logs/2024-02.txt"]);
      assert.deepEqual(await listedKeys(transport, "logs"), ["logs/2024-01.txt", "logs/2024-02.txt", "logs/2025-01.txt", "logs2/x.txt"]);
      assert.deepEqual(await listedKeys(transport, "log"), [
        "log.txt",
        "logs/2024-01.txt",
        "logs/2024-02.txt",
        "logs/2025-01.txt",
        "logs2/x.txt",
      ]);
      assert.deepEqual(await listedKeys(transport, "nothing/"), []);
    }));

  it("list without a prefix returns every key, nested ones included", () =>
    withTransport(context, async (transport) => {
      const keys = ["a.txt", "deep/er/still/b.txt", "deep/c.txt"];
      for (const key of keys) await transport.write(key, bytesOf(key), { ifRevision: null });
      assert.deepEqual(await listedKeys(transport), [...keys].sort());
      assert.deepEqual(await listedKeys(transport, ""), [...keys].sort());
    }));

  it("list reports the revision and size of the latest write", () =>
    withTransport(context, async (transport) => {
      const first = await transport.write("grow.txt", bytesOf("1"), { ifRevision: null });
      const second = await transport.write("grow.txt", bytesOf("1234"), { ifRevision: first.revision });
      const [entry, ...rest] = await collect(transport.list("grow"));
      assert.equal(rest.length, 0, "one entry");
      assert.ok(entry);
      expectEntry(entry, "grow.txt", 4);
      assert.equal(entry.revision, second.revision);
    }));
}

async function writeMany(transport: Transport, count: number): Promise<TransportEntry[]> {
  const written: TransportEntry[] = [];
  let next = 0;
  // A fixed pool of concurrent writers keeps this fast without flooding the store.
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        const key = `many/${String(index).padStart(5, "0")}.txt`;
        written.push(await transport.write(key, bytesOf(`object ${index}`), { ifRevision: null }));
      }
    }),
  );
  return written;
}

async function listedKeys(transport: Transport, prefix?: string): Promise<string[]> {
  const keys = (await collect(transport.list(prefix))).map((entry) => entry.key);
  return keys.sort();
}
