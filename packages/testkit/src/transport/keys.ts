import assert from "node:assert/strict";
import { bytesOf, collect, expectOutpostError } from "./transport-assertions.js";
import { withTransport, type TransportSuiteContext } from "./transport-suite-context.js";

/** Keys that try to leave the store, or are malformed; each must be refused before any I/O. */
export const HOSTILE_KEYS: readonly string[] = Object.freeze([
  "../escape.txt",
  "a/../../escape.txt",
  "a/..",
  "/etc/passwd",
  "a//b.txt",
  "a/./b.txt",
  "trailing/",
  "",
  "back\\slash.txt",
  "nul\0byte.txt",
  "x".repeat(1_100),
]);

/** Key validation: escapes and malformed keys are code `configuration` on every method. */
export function transportKeyTests(context: TransportSuiteContext): void {
  const { it } = context.runner;

  it("keys that escape or are malformed are refused with code configuration by write, read and remove", () =>
    withTransport(context, async (transport) => {
      const valid = await transport.write("inside.txt", bytesOf("inside"), { ifRevision: null });
      for (const key of HOSTILE_KEYS) {
        const label = JSON.stringify(key.slice(0, 40));
        await expectOutpostError(transport.write(key, bytesOf("evil"), { ifRevision: null }), "configuration", `write ${label}`);
        await expectOutpostError(
          transport.write(key, bytesOf("evil"), { ifRevision: valid.revision }),
          "configuration",
          `overwrite ${label}`,
        );
        await expectOutpostError(transport.read(key), "configuration", `read ${label}`);
        await expectOutpostError(transport.remove(key, { ifRevision: valid.revision }), "configuration", `remove ${label}`);
      }
      const keys = (await collect(transport.list())).map((entry) => entry.key);
      assert.deepEqual(keys, ["inside.txt"], "a refused key left something behind");
    }));

  it("prefixes that escape are refused with code configuration by list", () =>
    withTransport(context, async (transport) => {
      for (const prefix of ["../", "/abs", "a//", "a/../b", "..", "./x"]) {
        await expectOutpostError(collect(transport.list(prefix)), "configuration", `list ${JSON.stringify(prefix)}`);
      }
    }));

  it("keys with spaces, quotes and non-ASCII characters round-trip", () =>
    withTransport(context, async (transport) => {
      const keys = [
        "with space/file name.txt",
        "quotes/'single' \"double\".json",
        "unicode/日本語/ü-ñ-🚀.txt",
        "dots/..hidden",
        "dots/a..b",
      ];
      for (const key of keys) await transport.write(key, bytesOf(key), { ifRevision: null });
      for (const key of keys) {
        const stored = await transport.read(key);
        assert.equal(Buffer.from(stored?.bytes ?? []).toString(), key, `read ${key}`);
      }
      const listed = (await collect(transport.list())).map((entry) => entry.key).sort();
      assert.deepEqual(listed, [...keys].sort());
    }));
}
