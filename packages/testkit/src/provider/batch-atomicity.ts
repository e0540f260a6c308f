import assert from "node:assert/strict";
import { mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isOutpostError, type FileManifestEntry } from "@outpost/core";
import { hostManifest, snapshotTree, writeFixtureTree } from "./host-tree.js";
import { expectOutpostError } from "./provider-assertions.js";
import { leaseCheck, withHostDirectory, type ProviderSuiteContext } from "./provider-suite-context.js";
import { shellOk } from "./sandbox-shell.js";
import { withSandboxOutside } from "./transfers.js";

// Nested first entries, so a provider that creates parents while it goes leaves directories behind.
const BATCH = ["deep/deeper/leaf.txt", "every-byte.bin", "noise.bin"] as const;

/** A batch is all or nothing, and never writes through a link in its destination. */
export function providerBatchTests(context: ProviderSuiteContext): void {
  leaseCheck(
    context,
    "downloadBatch whose third entry fails its SHA-256 writes nothing, not even directories",
    async ({ lease }) => {
      await withHostDirectory(async (host) => {
        await mkdir(join(host, "source"));
        await writeFixtureTree(join(host, "source"));
        await lease.upload(join(host, "source"), "tree");
        const entries = thirdCorrupted(await lease.fileTransfers!.manifest("tree", [...BATCH]));
        const destination = join(host, "batch");
        await expectRejected(
          lease.fileTransfers!.downloadBatch("tree", entries, destination),
          "downloadBatch with a wrong SHA-256 in its third entry",
        );
        const left = await snapshotTree(destination).catch(() => []);
        assert.deepEqual(
          left.map((node) => `${node.kind} ${node.path}`),
          [],
          "a refused downloadBatch left these behind",
        );
      });
    },
    { capability: "fileTransfers" },
  );

  leaseCheck(
    context,
    "uploadBatch whose third entry fails its SHA-256 writes nothing, not even directories",
    async ({ lease }) => {
      await withHostDirectory(async (host) => {
        await writeFixtureTree(host);
        const entries = thirdCorrupted((await hostManifest(host)).filter((entry) => (BATCH as readonly string[]).includes(entry.path)));
        await expectRejected(
          lease.fileTransfers!.uploadBatch!(host, entries, "kit-batch"),
          "uploadBatch with a wrong SHA-256 in its third entry",
        );
        const left = await shellOk(lease, "[ -d kit-batch ] && cd kit-batch && find . ! -name . | sort; true");
        assert.equal(left, "", `a refused uploadBatch left these behind: ${left.split("\n").join(" ")}`);
      });
    },
    { capability: "uploadBatch" },
  );

  leaseCheck(
    context,
    "downloadBatch refuses to write through a link in the host destination (code workspace)",
    async ({ lease }) => {
      await withHostDirectory(async (host) => {
        await shellOk(lease, "mkdir -p tree/sub && echo planted > tree/sub/file.txt && echo planted > tree/top.txt");
        const entries = await lease.fileTransfers!.manifest("tree", ["sub/file.txt", "top.txt"]);
        await mkdir(join(host, "outside"));
        await writeFile(join(host, "outside", "top.txt"), "untouched");
        await mkdir(join(host, "destination"));
        await symlink(join(host, "outside"), join(host, "destination", "sub"));
        await expectOutpostError(
          lease.fileTransfers!.downloadBatch("tree", entries, join(host, "destination")),
          "workspace",
          "downloadBatch into a destination whose sub/ is a link leading outside",
        );
        assert.deepEqual((await readdir(join(host, "outside"))).sort(), ["top.txt"], "a refused downloadBatch wrote through the link");
        assert.equal(await readFile(join(host, "outside", "top.txt"), "utf8"), "untouched");
      });
    },
    { capability: "fileTransfers" },
  );

  leaseCheck(
    context,
    "uploadBatch refuses to write through a link in the sandbox destination (code workspace)",
    async ({ lease }) => {
      await withHostDirectory((host) =>
        withSandboxOutside(lease, async (outside) => {
          await mkdir(join(host, "sub"));
          await writeFile(join(host, "sub", "file.txt"), "planted");
          const entries = (await hostManifest(host)).filter((entry) => entry.path === "sub/file.txt");
          await shellOk(lease, 'mkdir -p kit-destination && ln -s "$1" kit-destination/sub', [outside]);
          await expectOutpostError(
            lease.fileTransfers!.uploadBatch!(host, entries, "kit-destination"),
            "workspace",
            "uploadBatch into a destination whose sub/ is a link leading outside",
          );
          assert.equal(await shellOk(lease, 'ls -A "$1"', [outside]), "", "a refused uploadBatch wrote through the link");
        }),
      );
    },
    { capability: "uploadBatch" },
  );
}

function thirdCorrupted(entries: readonly FileManifestEntry[]): FileManifestEntry[] {
  const ordered = BATCH.map((path) => entries.find((entry) => entry.path === path));
  assert.ok(
    ordered.every((entry) => entry !== undefined),
    `the manifest lacks some of ${BATCH.join(", ")}`,
  );
  return ordered.map((entry, index) => (index === 2 ? { ...entry, sha256: "0".repeat(64) } : entry));
}

async function expectRejected(promise: Promise<unknown>, what: string): Promise<void> {
  const outcome = await promise.then(
    () => "resolved",
    (error: unknown) => error,
  );
  assert.notEqual(outcome, "resolved", `${what}: expected a refusal, but it resolved`);
  assert.ok(isOutpostError(outcome), `${what}: expected an OutpostError, got ${String(outcome)}`);
}
