import assert from "node:assert/strict";
import { bytesOf, expectOutpostError, expectStored } from "./transport-assertions.js";
import { withTransport, type TransportSuiteContext } from "./transport-suite-context.js";

/** Reads: a missing key is `undefined`; `maxBytes` refuses larger objects with code `limit`. */
export function transportReadTests(context: TransportSuiteContext): void {
  const { it } = context.runner;

  it("read of a missing key resolves undefined", () =>
    withTransport(context, async (transport) => {
      assert.equal(await transport.read("never/written.txt"), undefined);
      await transport.write("never/other.txt", bytesOf("x"), { ifRevision: null });
      assert.equal(await transport.read("never/written.txt"), undefined);
      assert.equal(await transport.read("never"), undefined, "a prefix of a key is not an object");
    }));

  it("read with maxBytes refuses a larger object with code limit", () =>
    withTransport(context, async (transport) => {
      const bytes = new Uint8Array(200_000).fill(7);
      await transport.write("big.bin", bytes, { ifRevision: null });
      const error = await expectOutpostError(transport.read("big.bin", { maxBytes: 1_000 }), "limit", "read over maxBytes");
      assert.match(error.message, /big\.bin/, "the message names the key");
      await expectOutpostError(transport.read("big.bin", { maxBytes: bytes.length - 1 }), "limit", "read one byte over maxBytes");
    }));

  it("read with maxBytes at or above the size returns the object", () =>
    withTransport(context, async (transport) => {
      const bytes = bytesOf("exactly this");
      const entry = await transport.write("fits.txt", bytes, { ifRevision: null });
      const exact = await transport.read("fits.txt", { maxBytes: bytes.length });
      assert.ok(exact, "read at exactly maxBytes");
      assert.deepEqual(Buffer.from(exact.bytes), Buffer.from(bytes));
      assert.equal(exact.revision, entry.revision);
      const roomy = await transport.read("fits.txt", { maxBytes: 10_000_000 });
      assert.equal(roomy?.size, bytes.length);
      await transport.write("empty.txt", new Uint8Array(0), { ifRevision: null });
      assert.equal((await transport.read("empty.txt", { maxBytes: 0 }))?.size, 0, "an empty object fits maxBytes 0");
    }));

  it("read with an invalid maxBytes is a configuration error", () =>
    withTransport(context, async (transport) => {
      await transport.write("x.txt", bytesOf("x"), { ifRevision: null });
      for (const maxBytes of [-1, Number.NaN, 1.5]) {
        await expectOutpostError(transport.read("x.txt", { maxBytes }), "configuration", `read with maxBytes ${maxBytes}`);
      }
    }));

  it("read returns what the last write stored", () =>
    withTransport(context, async (transport) => {
      const first = await transport.write("r.txt", bytesOf("first"), { ifRevision: null });
      const second = await transport.write("r.txt", bytesOf("second"), { ifRevision: first.revision });
      await expectStored(transport, "r.txt", bytesOf("second"), second.revision);
    }));
}
