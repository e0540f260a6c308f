import assert from "node:assert/strict";
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isOutpostError } from "@outpost/core";
import type { FileManifestEntry, FileTransfers, SandboxLease } from "@outpost/core";
import { hostManifest, snapshotTree, writeFixtureTree, type TreeNode } from "./host-tree.js";
import { expectOutpostError } from "./provider-assertions.js";
import { leaseCheck, withHostDirectory, type ProviderSuiteContext } from "./provider-suite-context.js";
import { shellOk } from "./sandbox-shell.js";
import { withSandboxOutside } from "./transfers.js";
import { providerBatchTests } from "./batch-atomicity.js";
import { providerFileTransferDeadlineTests } from "./transfer-deadline.js";
import { assertSameTree, octal } from "./tree-difference.js";

/** `fileTransfers`: manifests with SHA-256, batches that move exactly the listed entries, escapes refused. */
export function providerFileTransferTests(context: ProviderSuiteContext): void {
  const fileTransfers = { capability: "fileTransfers" } as const;

  leaseCheck(
    context,
    "manifest lists files and links with kind, mode, size and SHA-256",
    async ({ lease }) => {
      await withFixture(lease, async (source, transfers) => {
        const expected = await hostManifest(source);
        const listed = await transfers.manifest("tree", ["."]);
        assertSameTree(listed.map(asNode), expected.map(asNode), "the manifest differs from the host tree");
        const partial = await transfers.manifest("tree", ["every-byte.bin", "deep"]);
        assert.deepEqual(partial.map((entry) => entry.path).sort(), ["deep/deeper/leaf.txt", "deep/deeper/link-up", "every-byte.bin"]);
      });
    },
    fileTransfers,
  );

  leaseCheck(
    context,
    "manifest rejects paths that escape the source: ../, absolute, through a link (code workspace)",
    async ({ lease }) => {
      const transfers = lease.fileTransfers!;
      await withSandboxOutside(lease, async (outside) => {
        await shellOk(lease, 'mkdir -p tree && echo inside > tree/file.txt && echo secret > "$1/secret.txt" && ln -s "$1" tree/exit', [
          outside,
        ]);
        await expectOutpostError(transfers.manifest("tree", ["../tree/file.txt"]), "workspace", "manifest of ../");
        await expectOutpostError(transfers.manifest("tree", ["/etc/passwd"]), "workspace", "manifest of an absolute path");
        await expectOutpostError(
          transfers.manifest("tree", ["exit/secret.txt"]),
          "workspace",
          "manifest through a link leaving the source",
        );
      });
    },
    fileTransfers,
  );

  leaseCheck(
    context,
    "manifest and downloadBatch carry permission bits only: no setuid, setgid or sticky bit reaches the host",
    async ({ lease }) => {
      await withHostDirectory(async (host) => {
        await shellOk(lease, "mkdir -p special && echo x > special/root-shell && chmod 6755 special/root-shell");
        const listed = await lease.fileTransfers!.manifest("special", ["."]);
        assert.deepEqual(
          listed.map((entry) => [entry.path, octal(entry.mode)]),
          [["root-shell", octal(0o755)]],
          "the manifest reports bits that never travel",
        );
        await lease.fileTransfers!.downloadBatch("special", listed, join(host, "batch"));
        const mode = (await stat(join(host, "batch", "root-shell"))).mode & 0o7777;
        assert.equal(octal(mode), octal(0o755), "downloadBatch brought a set-id bit to the host");
      });
    },
    fileTransfers,
  );

  leaseCheck(
    context,
    "downloadBatch moves exactly the listed entries, verified",
    async ({ lease }) => {
      await withFixture(lease, async (source, transfers, host) => {
        const listed = await transfers.manifest("tree", ["."]);
        const chosen = listed.filter((entry) => ["noise.bin", "tool.sh", "link-to-file", "deep/deeper/leaf.txt"].includes(entry.path));
        assert.equal(chosen.length, 4, "the fixture entries are missing from the manifest");
        const destination = join(host, "batch");
        await transfers.downloadBatch("tree", chosen, destination);
        const expected = (await snapshotTree(source)).filter(
          (node) => node.kind !== "directory" && chosen.some((entry) => entry.path === node.path),
        );
        const moved = (await snapshotTree(destination)).filter((node) => node.kind !== "directory");
        assertSameTree(moved, expected, "downloadBatch moved a different set of entries");
      });
    },
    fileTransfers,
  );

  leaseCheck(
    context,
    "downloadBatch refuses a wrong SHA-256 and entries that escape, writing nothing",
    async ({ lease }) => {
      await withFixture(lease, async (_source, transfers, host) => {
        const [entry] = await transfers.manifest("tree", ["noise.bin"]);
        const destination = join(host, "refused");
        await expectRejected(
          transfers.downloadBatch("tree", [{ ...entry!, sha256: "0".repeat(64) }], destination),
          "downloadBatch with a wrong SHA-256",
        );
        await expectOutpostError(
          transfers.downloadBatch("tree", [{ ...entry!, path: "../tree/noise.bin" }], destination),
          "workspace",
          "downloadBatch of ../",
        );
        await expectOutpostError(
          transfers.downloadBatch("tree", [{ ...entry!, path: "/etc/passwd" }], destination),
          "workspace",
          "downloadBatch of an absolute path",
        );
        assert.deepEqual(await files(destination), [], "a refused batch left files behind");
      });
    },
    fileTransfers,
  );

  leaseCheck(
    context,
    "uploadBatch moves exactly the listed entries, verified",
    async ({ lease }) => {
      await withHostDirectory(async (host) => {
        await writeFixtureTree(host);
        const chosen = (await hostManifest(host)).filter((entry) =>
          ["every-byte.bin", "tool.sh", "deep/deeper/link-up", "deep/deeper/leaf.txt"].includes(entry.path),
        );
        await lease.fileTransfers!.uploadBatch!(host, chosen, "uploaded");
        const listed = await lease.fileTransfers!.manifest("uploaded", ["."]);
        assertSameTree(listed.map(asNode), chosen.map(asNode), "uploadBatch moved a different set of entries");
      });
    },
    { capability: "uploadBatch" },
  );

  leaseCheck(
    context,
    "uploadBatch refuses a wrong SHA-256 and entries that escape, writing nothing",
    async ({ lease }) => {
      await withHostDirectory(async (host) => {
        await writeFixtureTree(host);
        const entry = (await hostManifest(host)).find((candidate) => candidate.path === "noise.bin")!;
        const upload = (entries: FileManifestEntry[]) => lease.fileTransfers!.uploadBatch!(host, entries, "refused");
        await expectRejected(upload([{ ...entry, sha256: "0".repeat(64) }]), "uploadBatch with a wrong SHA-256");
        await expectOutpostError(upload([{ ...entry, path: "../noise.bin" }]), "workspace", "uploadBatch of ../");
        await expectOutpostError(upload([{ ...entry, path: "/tmp/noise.bin" }]), "workspace", "uploadBatch of an absolute path");
        assert.equal(await shellOk(lease, "[ -e refused/noise.bin ] || [ -e noise.bin ] && echo written || echo absent"), "absent\n");
      });
    },
    { capability: "uploadBatch" },
  );

  providerBatchTests(context);
  providerFileTransferDeadlineTests(context);
}

async function withFixture(
  lease: SandboxLease,
  body: (source: string, transfers: FileTransfers, host: string) => Promise<void>,
): Promise<void> {
  await withHostDirectory(async (host) => {
    const source = join(host, "source");
    await mkdir(source);
    await writeFixtureTree(source);
    await lease.upload(source, "tree");
    await body(source, lease.fileTransfers!, host);
  });
}

/** Entry fields every provider must agree on, as a tree node; link modes and sizes vary by file system and are left out. */
function asNode(entry: FileManifestEntry): TreeNode {
  if (entry.kind === "link") return { path: entry.path, kind: "link", sha256: entry.sha256 };
  return { path: entry.path, kind: "file", mode: entry.mode & 0o777, sha256: `${entry.sha256} (${entry.size} bytes)` };
}

async function expectRejected(promise: Promise<unknown>, what: string): Promise<void> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(isOutpostError(outcome), `${what}: expected an OutpostError, got ${outcome === undefined ? "success" : String(outcome)}`);
}

async function files(directory: string): Promise<string[]> {
  const nodes = await snapshotTree(directory).catch(() => []);
  return nodes.filter((node) => node.kind !== "directory").map((node) => node.path);
}
