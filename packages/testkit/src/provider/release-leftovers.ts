import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { leaseCheck, type ProviderSuiteContext } from "./provider-suite-context.js";
import { shellOk } from "./sandbox-shell.js";

/**
 * Two grandchildren that outlive their command: one in the command's process group, one in a new
 * session (`setsid`, when the sandbox has it). Each bumps a counter in root every 200 ms.
 */
const LEFTOVERS_SCRIPT = `
beat() { n=0; while :; do n=$((n+1)); echo $n > "$1"; sleep 0.2 2>/dev/null || sleep 1; done; }
( beat kit-beat-group ) </dev/null >/dev/null 2>&1 &
if command -v setsid >/dev/null 2>&1; then
  setsid sh -c 'n=0; while :; do n=$((n+1)); echo $n > kit-beat-session; sleep 0.2 2>/dev/null || sleep 1; done' </dev/null >/dev/null 2>&1 &
  echo kit-beat-session
fi
echo kit-beat-group
`;

// After release() resolved, a counter that still moves within this window proves a survivor.
const WATCH_MS = 3_000;

/** release() ends every process its commands started, also those that outlived their command. */
export function providerReleaseLeftoverTests(context: ProviderSuiteContext): void {
  leaseCheck(
    context,
    "release() ends the grandchildren that outlived their command, a new session's included",
    async ({ provider, workspace }) => {
      const lease = await provider.acquire(await context.context(workspace));
      let counters: string[];
      try {
        counters = (await shellOk(lease, LEFTOVERS_SCRIPT)).split("\n").filter((line) => line !== "");
        // They run: each counter moves (read in the sandbox, so this also holds for remote placements).
        for (const counter of counters) await expectMoving(() => shellOk(lease, 'cat "$1" 2>/dev/null || true', [counter]), counter);
      } finally {
        await lease.release();
      }
      // After release the sandbox cannot be asked any more: watch the counters through the shared root.
      if (provider.placement === "remote") return;
      const survivors: string[] = [];
      for (const counter of counters) {
        const read = () => readFile(join(workspace, counter), "utf8").catch(() => "");
        const before = await read();
        await sleep(WATCH_MS);
        if ((await read()) !== before)
          survivors.push(
            counter === "kit-beat-session" ? "the grandchild in a new session (setsid)" : "the grandchild in the command's process group",
          );
      }
      assert.ok(survivors.length === 0, `after release() resolved, still running: ${survivors.join("; ")}`);
    },
    { timeoutMs: 90_000 },
  );
}

async function expectMoving(read: () => Promise<string>, counter: string): Promise<void> {
  const first = await read();
  for (let attempt = 0; attempt < 100; attempt++) {
    await sleep(200);
    const now = await read();
    if (now !== "" && now !== first) return;
  }
  assert.fail(`the kit's background process (${counter}) never ran, so release() could not be checked`);
}
