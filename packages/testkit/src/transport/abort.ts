import assert from "node:assert/strict";
import { bytesOf, collect, expectOutpostError, expectStored } from "./transport-assertions.js";
import { withTransport, type TransportSuiteContext } from "./transport-suite-context.js";

/** A signal that already fired stops every method with code `aborted` and changes nothing. */
export function transportAbortTests(context: TransportSuiteContext): void {
  const { it } = context.runner;

  it("an already aborted signal rejects read, write, remove and list with code aborted", () =>
    withTransport(context, async (transport) => {
      const entry = await transport.write("kept.txt", bytesOf("kept"), { ifRevision: null });
      const signal = AbortSignal.abort(new Error("caller gave up"));
      await expectOutpostError(transport.write("new.txt", bytesOf("x"), { ifRevision: null, signal }), "aborted", "write");
      await expectOutpostError(transport.write("kept.txt", bytesOf("x"), { ifRevision: entry.revision, signal }), "aborted", "overwrite");
      await expectOutpostError(transport.read("kept.txt", { signal }), "aborted", "read");
      await expectOutpostError(transport.remove("kept.txt", { ifRevision: entry.revision, signal }), "aborted", "remove");
      await expectOutpostError(collect(transport.list("", { signal })), "aborted", "list");
      assert.equal(await transport.read("new.txt"), undefined, "an aborted create wrote the object");
      await expectStored(transport, "kept.txt", bytesOf("kept"), entry.revision);
    }));
}
