import assert from "node:assert/strict";
import { bytesOf, expectEntry, expectOutpostError, expectStored } from "./transport-assertions.js";
import { withTransport, type TransportSuiteContext } from "./transport-suite-context.js";

/** Create-only and compare-and-swap writes: a lost race is code `conflict`, never an overwrite. */
export function transportConditionalWriteTests(context: TransportSuiteContext): void {
  const { it } = context.runner;

  it("a create-only write stores a new key and returns its entry", () =>
    withTransport(context, async (transport) => {
      const bytes = bytesOf("first version ✓");
      const entry = await transport.write("notes/a.txt", bytes, { ifRevision: null });
      expectEntry(entry, "notes/a.txt", bytes.byteLength);
      await expectStored(transport, "notes/a.txt", bytes, entry.revision);
    }));

  it("a create-only write on an existing key conflicts and keeps the stored bytes", () =>
    withTransport(context, async (transport) => {
      const first = await transport.write("a.json", bytesOf("one"), { ifRevision: null });
      await expectOutpostError(
        transport.write("a.json", bytesOf("two"), { ifRevision: null }),
        "conflict",
        "create-only on an existing key",
      );
      await expectStored(transport, "a.json", bytesOf("one"), first.revision);
    }));

  it("a write with the current revision replaces the object", () =>
    withTransport(context, async (transport) => {
      const first = await transport.write("a.json", bytesOf("one"), { ifRevision: null });
      const second = await transport.write("a.json", bytesOf("two, longer"), { ifRevision: first.revision });
      expectEntry(second, "a.json", 11);
      await expectStored(transport, "a.json", bytesOf("two, longer"), second.revision);
    }));

  it("a write with a stale revision conflicts and keeps the newer bytes", () =>
    withTransport(context, async (transport) => {
      const first = await transport.write("a.json", bytesOf("one"), { ifRevision: null });
      const second = await transport.write("a.json", bytesOf("two"), { ifRevision: first.revision });
      await expectOutpostError(
        transport.write("a.json", bytesOf("three"), { ifRevision: first.revision }),
        "conflict",
        "write with a stale revision",
      );
      await expectStored(transport, "a.json", bytesOf("two"), second.revision);
    }));

  it("a write with a revision on a missing key conflicts and creates nothing", () =>
    withTransport(context, async (transport) => {
      const other = await transport.write("other.json", bytesOf("x"), { ifRevision: null });
      await expectOutpostError(
        transport.write("missing.json", bytesOf("y"), { ifRevision: other.revision }),
        "conflict",
        "write with a revision on a missing key",
      );
      assert.equal(await transport.read("missing.json"), undefined, "the missing key was created");
    }));

  it("every write returns a fresh revision, also when the bytes are the same", () =>
    withTransport(context, async (transport) => {
      const bytes = bytesOf("same bytes");
      const seen = new Set<string>();
      let entry = await transport.write("same.bin", bytes, { ifRevision: null });
      seen.add(entry.revision);
      for (let round = 0; round < 4; round += 1) {
        const previous = entry.revision;
        entry = await transport.write("same.bin", bytes, { ifRevision: previous });
        assert.ok(!seen.has(entry.revision), `write ${round + 2} reused revision ${entry.revision}`);
        seen.add(entry.revision);
        await expectOutpostError(
          transport.write("same.bin", bytes, { ifRevision: previous }),
          "conflict",
          "write with the revision before an identical rewrite",
        );
      }
      await expectStored(transport, "same.bin", bytes, entry.revision);
    }));

  it("a revision of one key does not authorize a write to another key", () =>
    withTransport(context, async (transport) => {
      const bytes = bytesOf("identical");
      const a = await transport.write("a.txt", bytes, { ifRevision: null });
      const b = await transport.write("b.txt", bytes, { ifRevision: null });
      await expectOutpostError(
        transport.write("b.txt", bytesOf("changed"), { ifRevision: a.revision }),
        "conflict",
        "write with another key's revision",
      );
      await expectStored(transport, "b.txt", bytes, b.revision);
    }));

  it("binary and empty objects round-trip byte-exact", () =>
    withTransport(context, async (transport) => {
      const binary = new Uint8Array(70_000);
      for (let index = 0; index < binary.length; index += 1) binary[index] = (index * 31 + 7) % 256;
      binary[0] = 0;
      await transport.write("blobs/binary.bin", binary, { ifRevision: null });
      await expectStored(transport, "blobs/binary.bin", binary);
      const empty = await transport.write("blobs/empty.bin", new Uint8Array(0), { ifRevision: null });
      expectEntry(empty, "blobs/empty.bin", 0);
      await expectStored(transport, "blobs/empty.bin", new Uint8Array(0), empty.revision);
    }));

  it("a key that is also the prefix of other keys keeps both objects", () =>
    withTransport(context, async (transport) => {
      await transport.write("tree", bytesOf("leaf"), { ifRevision: null });
      await transport.write("tree/child", bytesOf("child"), { ifRevision: null });
      await expectStored(transport, "tree", bytesOf("leaf"));
      await expectStored(transport, "tree/child", bytesOf("child"));
    }));
}
