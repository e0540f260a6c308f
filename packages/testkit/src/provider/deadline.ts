import assert from "node:assert/strict";
import type { SandboxLease } from "@outpost/core";
import { expectOutpostError, within } from "./provider-assertions.js";
import { leaseCheck, type ProviderSuiteContext } from "./provider-suite-context.js";
import { TREE_PID_FILES, TREE_SCRIPT } from "./process-tree-script.js";
import { shell, shellOk, survivors } from "./sandbox-shell.js";
import { providerTransferDeadlineTests } from "./transfer-deadline.js";

const DEADLINE_MS = 2_000;
// Time a provider may take, after the deadline or abort, to stop a tree that ignores SIGTERM and report it.
const STOP_ALLOWANCE_MS = 15_000;

/** `deadlineMs` and `signal` end the whole process tree, with a clear error, and the lease stays usable. */
export function providerDeadlineTests(context: ProviderSuiteContext): void {
  leaseCheck(context, "deadlineMs kills the whole tree, a grandchild ignoring SIGTERM included (code timeout)", async ({ lease }) => {
    let ready = false;
    const run = shell(lease, TREE_SCRIPT, [], {
      deadlineMs: DEADLINE_MS,
      observe: (_channel, text) => (ready ||= text.includes("ready")),
    });
    const error = await within(
      expectOutpostError(run, "timeout", "a command past its deadline"),
      DEADLINE_MS + STOP_ALLOWANCE_MS,
      "the command past its deadline",
    );
    assert.match(
      error.message,
      new RegExp(`\\b${DEADLINE_MS}\\b`),
      `the timeout message should name the ${DEADLINE_MS} ms deadline: ${error.message}`,
    );
    assert.ok(ready, `the tree did not start within the ${DEADLINE_MS} ms deadline, so nothing was proven`);
    await expectTreeGone(lease);
  });

  leaseCheck(
    context,
    "an aborted signal kills the whole tree, a grandchild ignoring SIGTERM included (code aborted)",
    async ({ lease }) => {
      const controller = new AbortController();
      const run = shell(lease, TREE_SCRIPT, [], {
        signal: controller.signal,
        deadlineMs: 120_000,
        observe: (_channel, text) => {
          if (text.includes("ready")) controller.abort(new Error("the kit aborted on purpose"));
        },
      });
      const error = await within(
        expectOutpostError(run, "aborted", "an aborted command"),
        30_000 + STOP_ALLOWANCE_MS,
        "the aborted command",
      );
      assert.match(error.message, /the kit aborted on purpose/, `the abort message should carry the signal's reason: ${error.message}`);
      await expectTreeGone(lease);
    },
  );

  leaseCheck(context, "a signal aborted before the call rejects without running the command", async ({ lease }) => {
    const controller = new AbortController();
    controller.abort(new Error("aborted before the call"));
    await expectOutpostError(
      shell(lease, "echo ran > kit-ran.txt", [], { signal: controller.signal }),
      "aborted",
      "a command with an aborted signal",
    );
    assert.equal(await shellOk(lease, "[ -e kit-ran.txt ] && echo ran || echo not run"), "not run\n");
  });

  providerTransferDeadlineTests(context);
}

/** Every pid of the tree has ended (checked in the sandbox), and the lease still runs commands. */
async function expectTreeGone(lease: SandboxLease): Promise<void> {
  const pids = (await shellOk(lease, 'cat "$@"', [...TREE_PID_FILES])).split(/\s+/).filter((pid) => pid !== "");
  assert.equal(pids.length, TREE_PID_FILES.length, `expected ${TREE_PID_FILES.length} pids, read ${JSON.stringify(pids)}`);
  let alive = await survivors(lease, pids);
  // A SIGKILL may still be on its way when the promise settles: allow a short moment, never more.
  for (let attempt = 0; alive.length > 0 && attempt < 20; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    alive = await survivors(lease, pids);
  }
  assert.deepEqual(alive, [], `processes of the stopped tree still run: ${alive.join(", ")}`);
  assert.equal(await shellOk(lease, "echo usable"), "usable\n", "the lease must run commands after a stopped tree");
}
