import assert from "node:assert/strict";
import { bytesOf, collect, expectOutpostError, expectStored } from "./transport-assertions.js";
import { withTransport, type TransportSuiteContext } from "./transport-suite-context.js";

/** Conditional remove: only the current revision removes, and a replacement is never removed. */
export function transportRemoveTests(context: TransportSuiteContext): void {
  const { it } = context.runner;

  it("remove with the current revision removes the object from read and list", () =>
    withTransport(context, async (transport) => {
      const entry = await transport.write("gone/a.txt", bytesOf("a"), { ifRevision: null });
      await transport.write("gone/b.txt", bytesOf("b"), { ifRevision: null });
      await transport.remove("gone/a.txt", { ifRevision: entry.revision });
      assert.equal(await transport.read("gone/a.txt"), undefined, "read after remove");
      const keys = (await collect(transport.list("gone/"))).map((listed) => listed.key);
      assert.deepEqual(keys, ["gone/b.txt"], "list after remove");
    }));

  it("remove with a stale revision conflicts and keeps the object", () =>
    withTransport(context, async (transport) => {
      const first = await transport.write("a.txt", bytesOf("one"), { ifRevision: null });
      const second = await transport.write("a.txt", bytesOf("two"), { ifRevision: first.revision });
      await expectOutpostError(transport.remove("a.txt", { ifRevision: first.revision }), "conflict", "remove with a stale revision");
      await expectStored(transport, "a.txt", bytesOf("two"), second.revision);
    }));

  it("remove never deletes a replacement written after a remove, even with the same bytes", () =>
    withTransport(context, async (transport) => {
      const bytes = bytesOf("same");
      const original = await transport.write("a.txt", bytes, { ifRevision: null });
      await transport.remove("a.txt", { ifRevision: original.revision });
      const replacement = await transport.write("a.txt", bytes, { ifRevision: null });
      await expectOutpostError(
        transport.remove("a.txt", { ifRevision: original.revision }),
        "conflict",
        "remove of a replacement with the old revision",
      );
      await expectStored(transport, "a.txt", bytes, replacement.revision);
    }));

  it("remove of a missing key conflicts (there is no current revision)", () =>
    withTransport(context, async (transport) => {
      const other = await transport.write("other.txt", bytesOf("x"), { ifRevision: null });
      await expectOutpostError(transport.remove("missing.txt", { ifRevision: other.revision }), "conflict", "remove of a missing key");
    }));

  it("a removed key can be created again with a create-only write", () =>
    withTransport(context, async (transport) => {
      const first = await transport.write("again.txt", bytesOf("one"), { ifRevision: null });
      await transport.remove("again.txt", { ifRevision: first.revision });
      const second = await transport.write("again.txt", bytesOf("two"), { ifRevision: null });
      assert.notEqual(second.revision, first.revision, "the recreated object reused the old revision");
      await expectOutpostError(
        transport.write("again.txt", bytesOf("three"), { ifRevision: first.revision }),
        "conflict",
        "write with the revision of the removed object",
      );
      await expectStored(transport, "again.txt", bytesOf("two"), second.revision);
    }));
}
