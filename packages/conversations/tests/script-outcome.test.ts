import { describe, expect, it } from "vitest";
import { SCRIPT_RESULT_MARKER, ScriptOutcomeWatch } from "../src/sandbox/script-outcome.js";

describe("ScriptOutcomeWatch", () => {
  it("completes once the outcome line is whole, however the output is cut into chunks", async () => {
    const line = `noise\n${SCRIPT_RESULT_MARKER}{"ok":true,"value":"x"}\n`;
    for (const size of [1, 3, SCRIPT_RESULT_MARKER.length - 1, line.length]) {
      const watch = new ScriptOutcomeWatch();
      let done = false;
      void watch.complete.then(() => (done = true));
      watch.observe("stderr", line);
      for (let at = 0; at < line.length; at += size) {
        await Promise.resolve();
        expect(done).toBe(false);
        watch.observe("stdout", line.slice(at, at + size));
      }
      expect((await watch.complete).stdout).toBe(line);
    }
  });

  it("waits for the newline after the latest marker", async () => {
    const watch = new ScriptOutcomeWatch();
    let done = false;
    void watch.complete.then(() => (done = true));
    watch.observe("stdout", `${SCRIPT_RESULT_MARKER}{"ok":true}\n`.slice(0, -1) + ` ${SCRIPT_RESULT_MARKER}{"ok":`);
    await Promise.resolve();
    expect(done).toBe(false);
    watch.observe("stdout", `true}\n`);
    expect((await watch.complete).stdout).toContain(`${SCRIPT_RESULT_MARKER}{"ok":true}\n`);
  });
});
