import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { within } from "./provider-assertions.js";
import { leaseCheck, type ProviderSuiteContext } from "./provider-suite-context.js";
import { shell } from "./sandbox-shell.js";

/** Live `input`: lines written while the command runs reach it, after `stdin`, and ending input closes stdin. */
export function providerLiveInputTests(context: ProviderSuiteContext): void {
  leaseCheck(
    context,
    "feeds live input to a running command after stdin, and closes stdin when input ends",
    async ({ lease }) => {
      const input = new PassThrough();
      let seen = "";
      const run = shell(lease, 'while read -r line; do echo "got:$line"; done; echo closed', [], {
        stdin: "zero\n",
        input,
        deadlineMs: 30_000,
        // Each line is written only after the previous echo came back: proof that input is live.
        observe: (channel, text) => {
          if (channel !== "stdout") return;
          seen += text;
          if (seen === "got:zero\n") input.write("one ✓\n");
          if (seen === "got:zero\ngot:one ✓\n") {
            input.write("two\n");
            input.end();
          }
        },
      });
      const result = await within(run, 30_000, "a command fed live input");
      assert.deepEqual(result, { status: 0, stdout: "got:zero\ngot:one ✓\ngot:two\nclosed\n", stderr: "" });
    },
    { capability: "liveInput" },
  );
}
