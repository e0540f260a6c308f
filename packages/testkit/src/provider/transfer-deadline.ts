import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxLease } from "@outpost/core";
import { incompressibleBytes } from "./host-tree.js";
import { expectOutpostError } from "./provider-assertions.js";
import { leaseCheck, withHostDirectory, type ProviderSuiteContext } from "./provider-suite-context.js";
import { shellOk } from "./sandbox-shell.js";

// Enough files that no provider moves them within a millisecond, few enough to stay quick.
const FILES = 400;

/** A transfer honours `deadlineMs` and an abort that comes while it runs, not only one given before. */
export function providerTransferDeadlineTests(context: ProviderSuiteContext): void {
  leaseCheck(context, "deadlineMs stops an upload and a download in progress (code timeout)", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      const tree = await writeManyFiles(host);
      await expectOutpostError(
        lease.upload(tree, "kit-deadline-up", { deadlineMs: 1 }),
        "timeout",
        "an upload of 400 files with deadlineMs 1",
      );
      await lease.upload(tree, "kit-deadline-down");
      await expectOutpostError(
        lease.download("kit-deadline-down", join(host, "back"), { deadlineMs: 1 }),
        "timeout",
        "a download of 400 files with deadlineMs 1",
      );
      await expectUsable(lease);
    });
  });

  leaseCheck(context, "an abort while an upload or a download runs stops it (code aborted)", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      const tree = await writeManyFiles(host);
      const up = new AbortController();
      const upload = lease.upload(tree, "kit-abort-up", { signal: up.signal });
      up.abort(new Error("the kit aborted the upload on purpose"));
      const upError = await expectOutpostError(upload, "aborted", "an upload aborted while it ran");
      assert.match(
        upError.message,
        /the kit aborted the upload on purpose/,
        `the abort message should carry the signal's reason: ${upError.message}`,
      );
      await lease.upload(tree, "kit-abort-down");
      const down = new AbortController();
      const download = lease.download("kit-abort-down", join(host, "back"), { signal: down.signal });
      down.abort(new Error("the kit aborted the download on purpose"));
      const downError = await expectOutpostError(download, "aborted", "a download aborted while it ran");
      assert.match(
        downError.message,
        /the kit aborted the download on purpose/,
        `the abort message should carry the signal's reason: ${downError.message}`,
      );
      await expectUsable(lease);
    });
  });
}

/** The same for fileTransfers: a manifest past its deadline, a batch aborted while it runs. */
export function providerFileTransferDeadlineTests(context: ProviderSuiteContext): void {
  leaseCheck(
    context,
    "deadlineMs stops a manifest and an abort stops a downloadBatch in progress",
    async ({ lease }) => {
      await withHostDirectory(async (host) => {
        await lease.upload(await writeManyFiles(host), "kit-batch-source");
        const transfers = lease.fileTransfers!;
        await expectOutpostError(
          transfers.manifest("kit-batch-source", ["."], { deadlineMs: 1 }),
          "timeout",
          "a manifest of 400 files with deadlineMs 1",
        );
        const entries = await transfers.manifest("kit-batch-source", ["."]);
        const controller = new AbortController();
        const batch = transfers.downloadBatch("kit-batch-source", entries, join(host, "batch"), { signal: controller.signal });
        controller.abort(new Error("the kit aborted the batch on purpose"));
        const error = await expectOutpostError(batch, "aborted", "a downloadBatch aborted while it ran");
        assert.match(
          error.message,
          /the kit aborted the batch on purpose/,
          `the abort message should carry the signal's reason: ${error.message}`,
        );
        await expectUsable(lease);
      });
    },
    { capability: "fileTransfers" },
  );
}

async function writeManyFiles(host: string): Promise<string> {
  const tree = join(host, "many");
  await mkdir(join(tree, "nested"), { recursive: true });
  const bytes = incompressibleBytes(4096);
  await Promise.all(
    Array.from({ length: FILES }, (_, index) => writeFile(join(tree, index % 2 === 0 ? "nested" : "", `file-${index}.bin`), bytes)),
  );
  assert.equal((await readdir(tree)).length, FILES / 2 + 1);
  return tree;
}

async function expectUsable(lease: SandboxLease): Promise<void> {
  assert.equal(await shellOk(lease, "echo usable"), "usable\n", "the lease must stay usable after a stopped transfer");
}
