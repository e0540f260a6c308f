import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expectOutpostError, within } from "./provider-assertions.js";
import { leaseCheck, type ProviderSuiteContext } from "./provider-suite-context.js";
import { providerBackgroundWorkTests } from "./background-work.js";
import { providerReleaseLeftoverTests } from "./release-leftovers.js";
import { shell, shellOk } from "./sandbox-shell.js";

/** Acquire and release: root and home, release twice, release stopping commands, use after release. */
export function providerLifecycleTests(context: ProviderSuiteContext): void {
  leaseCheck(
    context,
    "exposes the worktree as root (shared with the host for placements host and mounted)",
    async ({ lease, provider, workspace }) => {
      assert.equal(
        await shellOk(lease, '[ -d "$1" ] && [ -w "$1" ] && echo ok', [lease.root]),
        "ok\n",
        "root must be a writable directory",
      );
      if (provider.placement === "remote") return; // a synchronized copy: nothing is shared with the host
      if (provider.placement === "host") assert.equal(lease.root, workspace, "placement host: root is the given directory");
      await writeFile(join(workspace, "from-host.txt"), "written on the host ✓\n");
      assert.equal(await shellOk(lease, "cat from-host.txt"), "written on the host ✓\n");
      await shellOk(lease, "printf 'written in the sandbox ✓' > from-sandbox.txt");
      assert.equal(await readFile(join(workspace, "from-sandbox.txt"), "utf8"), "written in the sandbox ✓");
    },
  );

  leaseCheck(context, "gives a writable home directory outside root", async ({ lease }) => {
    assert.ok(lease.home.startsWith("/"), `home must be absolute, got ${JSON.stringify(lease.home)}`);
    assert.notEqual(lease.home, lease.root, "home and root must differ");
    assert.equal(await shellOk(lease, ': > "$1/.outpost-kit-probe" && rm "$1/.outpost-kit-probe" && echo ok', [lease.home]), "ok\n");
  });

  leaseCheck(context, "release() resolves twice, and commands after it fail with code provider", async ({ provider, workspace }) => {
    const lease = await provider.acquire(await context.context(workspace));
    await lease.release();
    await lease.release();
    await expectOutpostError(lease.invoke({ executable: "true" }), "provider", "a command after release");
  });

  leaseCheck(context, "release() stops a running command", async ({ provider, workspace }) => {
    const lease = await provider.acquire(await context.context(workspace));
    try {
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const run = shell(lease, "echo started; exec sleep 300", [], { deadlineMs: 600_000, observe: () => started() });
      const settled = run.then(
        () => "resolved",
        () => "rejected",
      );
      await within(running, 20_000, "the command before release");
      await within(lease.release(), 30_000, "release() with a running command");
      const outcome = await within(settled, 15_000, "the command stopped by release()");
      assert.ok(outcome === "resolved" || outcome === "rejected");
    } finally {
      await lease.release();
    }
  });

  leaseCheck(context, "acquire() with an aborted signal rejects with code aborted", async ({ provider, workspace }) => {
    const controller = new AbortController();
    controller.abort(new Error("aborted before acquire"));
    const base = await context.context(workspace);
    await expectOutpostError(provider.acquire({ ...base, signal: controller.signal }), "aborted", "acquire() with an aborted signal");
  });

  providerBackgroundWorkTests(context);
  providerReleaseLeftoverTests(context);
}
