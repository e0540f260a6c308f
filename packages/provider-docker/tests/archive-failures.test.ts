import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { OperationGuard } from "@outpost/plugin-utils";
import { archiveFromSandbox } from "../src/docker-channel.js";
import type { LeaseSandbox } from "../src/lease-sandbox.js";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { sh, withDockerLease } from "./docker-fixtures.js";

/** Runs `script` (its stdout is taken for a tar stream) through the download path into a fresh staging folder. */
async function archiveOf(sandbox: LeaseSandbox, script: string): Promise<{ error: unknown }> {
  const staging = await mkdtemp(join(tmpdir(), "outpost-archive-failure-"));
  const guard = new OperationGuard({ deadlineMs: 60_000 }, "The archive test");
  try {
    const error = await archiveFromSandbox(sandbox, {
      script,
      arguments: () => [],
      prefixBytes: 0,
      staging,
      guard,
      action: 'download "tree" to "/host/dest"',
    }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    return { error };
  } finally {
    guard.dispose();
    await rm(staging, { recursive: true, force: true });
  }
}

describeGated("archives that arrive cut short or corrupt", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  for (const image of [TEST_IMAGE, BUSYBOX_IMAGE]) {
    it(`a tar stream truncated inside the container (tar | head) is a provider OutpostError with tar-stream's error as cause (${image})`, async () => {
      await withDockerLease({ image, mode: "isolated" }, async (lease) => {
        await sh(lease, "mkdir -p /tmp/tree && head -c 300000 /dev/zero > /tmp/tree/big && echo small > /tmp/tree/small");
        // Cut at a block boundary inside the first file's data and mid-block: both must be refused.
        for (const bytes of [512 * 100, 70_001]) {
          const { error } = await archiveOf(lease as unknown as LeaseSandbox, `cd /tmp/tree && tar -c -f - . | head -c ${bytes}`);
          expect(isOutpostError(error)).toBe(true);
          if (!isOutpostError(error)) return;
          expect(error.code).toBe("provider");
          expect(error.message).toMatch(
            /^Could not download "tree" to "\/host\/dest": the archive streamed from the sandbox was truncated or corrupt \(Unexpected end of data\)/,
          );
          expect(error.message).toMatch(/retry/);
          expect((error.cause as Error).message).toBe("Unexpected end of data");
          expect(error.details).toMatchObject({ archive: "truncated-or-corrupt" });
        }
      });
    });
  }

  it("bytes that are not a tar stream at all are a provider OutpostError, not a raw parser error", async () => {
    await withDockerLease({ image: BUSYBOX_IMAGE, mode: "isolated" }, async (lease) => {
      const { error } = await archiveOf(lease as unknown as LeaseSandbox, "head -c 4096 /dev/urandom");
      expect(isOutpostError(error) && error.code).toBe("provider");
      expect((error as Error).message).toMatch(/truncated or corrupt \(Invalid tar header/);
    });
  });

  it("a tar that fails inside the container reports its own status and stderr, even with a cut archive", async () => {
    await withDockerLease({ image: BUSYBOX_IMAGE, mode: "isolated" }, async (lease) => {
      const { error } = await archiveOf(
        lease as unknown as LeaseSandbox,
        "tar -c -f - /etc/hostname | head -c 600; echo 'tar: simulated read error' >&2; exit 2",
      );
      expect(isOutpostError(error) && error.code).toBe("workspace");
      expect((error as Error).message).toMatch(/tar: simulated read error \(status 2\)/);
      expect((error as { details?: unknown }).details).toMatchObject({ status: 2 });
    });
  });
});
