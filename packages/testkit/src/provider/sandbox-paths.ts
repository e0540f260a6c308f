import assert from "node:assert/strict";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import type { SandboxLease } from "@outpost/core";
import { expectOutpostError } from "./provider-assertions.js";
import { leaseCheck, withHostDirectory, type ProviderSuiteContext } from "./provider-suite-context.js";
import { withSandboxElsewhere } from "./sandbox-elsewhere.js";
import { shellOk } from "./sandbox-shell.js";
import { withSandboxOutside } from "./transfers.js";

/**
 * Which sandbox paths a transfer may name (core's `resolveSandboxPath`): relative inside root, absolute
 * under root or home. Each refusal is tried with a real file behind it, so a provider cannot pass by
 * failing on a missing file.
 */
export function providerSandboxPathTests(context: ProviderSuiteContext): void {
  leaseCheck(context, "accepts absolute transfer paths under root and home", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      await writeFile(join(host, "file.txt"), "legal ✓");
      for (const target of [`${lease.root}/kit-absolute/in-root.txt`, `${lease.home}/kit-absolute/in-home.txt`]) {
        await lease.upload(join(host, "file.txt"), target);
        await lease.download(target, join(host, posix.basename(target)));
        assert.equal(
          await readFile(join(host, posix.basename(target)), "utf8"),
          "legal ✓",
          `the round trip through ${target} changed the file`,
        );
      }
      await shellOk(lease, 'rm -rf "$1/kit-absolute"', [lease.home]);
    });
  });

  leaseCheck(context, "refuses absolute transfer paths outside root and home (code workspace)", async ({ lease }) => {
    await withHostDirectory((host) =>
      withSandboxElsewhere(lease, async (elsewhere) => {
        await writeFile(join(host, "file.txt"), "planted");
        await expectOutpostError(
          lease.upload(join(host, "file.txt"), `${elsewhere}/planted.txt`),
          "workspace",
          `upload to ${elsewhere}/planted.txt (outside root and home)`,
        );
        await expectOutpostError(
          lease.upload(host, `${elsewhere}/tree`),
          "workspace",
          `upload of a tree to ${elsewhere}/tree (outside root and home)`,
        );
        await expectOutpostError(
          lease.download(`${elsewhere}/secret.txt`, join(host, "secret.txt")),
          "workspace",
          `download of ${elsewhere}/secret.txt (outside root and home)`,
        );
        await expectOutpostError(
          lease.download(elsewhere, join(host, "tree")),
          "workspace",
          `download of the directory ${elsewhere} (outside root and home)`,
        );
        assert.equal(await shellOk(lease, 'ls -A "$1"', [elsewhere]), "secret.txt\n", "a refused upload wrote outside root and home");
        assert.deepEqual((await readdir(host)).sort(), ["file.txt"], "a refused download brought a file from outside root and home");
      }),
    );
  });

  leaseCheck(context, "refuses to download a real file through ../ (code workspace, naming the escape)", async ({ lease }) => {
    await withHostDirectory((host) =>
      withSandboxOutside(lease, async (outside) => {
        await shellOk(lease, 'echo "secret beside the root" > "$1/secret.txt"', [outside]);
        const through = posix.relative(lease.root, `${outside}/secret.txt`);
        assert.ok(through.startsWith("../"), `the kit expected a ../ path from root to ${outside}, got ${through}`);
        for (const path of [through, `kit-sub/${through.replace(/^\.\.\//, "../../")}`]) {
          const error = await expectOutpostError(
            lease.download(path, join(host, "secret.txt")),
            "workspace",
            `download of the real file ${path}`,
          );
          assert.doesNotMatch(
            error.message,
            /does not exist|no such file|not found|ENOENT/i,
            `the refusal of ${path} must name the escape, not a missing file (the file exists): ${error.message}`,
          );
        }
        assert.deepEqual(await readdir(host), [], "a refused download through ../ brought the file to the host");
      }),
    );
  });

  leaseCheck(context, "refuses to download from a path through a link that leaves the root (code workspace)", async ({ lease }) => {
    await withHostDirectory((host) =>
      withSandboxOutside(lease, async (outside) => {
        await shellOk(
          lease,
          'echo "secret behind a link" > "$1/secret.txt" && ln -s "$1" exit-directory && ln -s "$1/secret.txt" exit-file && mkdir -p nested && ln -s ../exit-directory nested/relative-exit',
          [outside],
        );
        for (const path of ["exit-directory/secret.txt", "exit-directory", "exit-file", "nested/relative-exit/secret.txt"]) {
          await expectOutpostError(
            lease.download(path, join(host, "out")),
            "workspace",
            `download of ${path} (through a link leaving the root)`,
          );
        }
        const written = await readdir(join(host)).catch(() => []);
        assert.deepEqual(written, [], `a refused download through a link brought ${written.join(", ")} to the host`);
      }),
    );
  });

  leaseCheck(
    context,
    "fileTransfers refuse sources and destinations outside root and home (code workspace)",
    async ({ lease }) => {
      const transfers = lease.fileTransfers!;
      await withHostDirectory((host) =>
        withSandboxElsewhere(lease, async (elsewhere) => {
          await expectOutpostError(transfers.manifest(elsewhere, ["."]), "workspace", `manifest of ${elsewhere} (outside root and home)`);
          const [entry] = await manifestOfOneFile(lease, host);
          await expectOutpostError(
            transfers.downloadBatch(elsewhere, [{ ...entry!, path: "secret.txt" }], join(host, "batch")),
            "workspace",
            `downloadBatch from ${elsewhere}`,
          );
          if (transfers.uploadBatch) {
            await expectOutpostError(
              transfers.uploadBatch(host, [entry!], `${elsewhere}/batch`),
              "workspace",
              `uploadBatch to ${elsewhere}/batch`,
            );
          }
          assert.equal(
            await shellOk(lease, 'ls -A "$1"', [elsewhere]),
            "secret.txt\n",
            "a refused uploadBatch wrote outside root and home",
          );
          assert.deepEqual(await readdir(join(host, "batch")).catch(() => []), [], "a refused downloadBatch wrote files");
        }),
      );
    },
    { capability: "fileTransfers" },
  );
}

/** Writes `one.txt` on the host and returns the manifest entry of its copy in the sandbox. */
async function manifestOfOneFile(lease: SandboxLease, host: string) {
  await writeFile(join(host, "one.txt"), "one");
  await lease.upload(join(host, "one.txt"), "kit-one/one.txt");
  return lease.fileTransfers!.manifest("kit-one", ["one.txt"]);
}
