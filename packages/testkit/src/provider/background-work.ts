import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { leaseCheck, type ProviderSuiteContext } from "./provider-suite-context.js";
import { shellOk, survivors } from "./sandbox-shell.js";

// How long the kit waits, and runs other commands, before looking for the background process again: what
// a platform does after a command (closing its session, its process group) has happened by then.
const SETTLE_MS = 1_500;

/** Where an agent's home is, and what a command leaves running: both as on every other provider. */
export function providerBackgroundWorkTests(context: ProviderSuiteContext): void {
  leaseCheck(context, "processes a command left running in the background live until release()", async ({ lease }) => {
    const pid = (await shellOk(lease, "sleep 120 </dev/null >/dev/null 2>&1 & echo $!")).trim();
    assert.match(pid, /^\d+$/, `the command printed ${JSON.stringify(pid)}, not a pid`);
    await sleep(SETTLE_MS);
    await shellOk(lease, "true");
    await shellOk(lease, "echo another command");
    await sleep(SETTLE_MS);
    assert.deepEqual(
      await survivors(lease, [pid]),
      [pid],
      `the background process ${pid} died before release(): a command's background work must live until the lease is released`,
    );
  });

  leaseCheck(
    context,
    "keeps home outside root, links resolved (the agent's home is never synchronized as the worktree)",
    async ({ lease }) => {
      const [root, home] = (await shellOk(lease, 'cd "$1" && pwd -P && cd "$2" && pwd -P', [lease.root, lease.home])).split("\n");
      assert.ok(root !== undefined && home !== undefined && root !== "" && home !== "", "root and home must exist");
      const inside = home === root || home.startsWith(`${root.replace(/\/$/, "")}/`);
      assert.ok(
        !inside,
        `home ${JSON.stringify(lease.home)} (${home}) lies inside root ${JSON.stringify(lease.root)} (${root}): give root a folder of its own`,
      );
    },
  );
}
