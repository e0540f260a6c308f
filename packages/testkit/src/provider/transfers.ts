import assert from "node:assert/strict";
import { chmod, mkdir, readFile, readdir, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxLease } from "@outpost/core";
import { AWKWARD_DIRECTORY, AWKWARD_FILE, incompressibleBytes, sha256, snapshotTree, writeFixtureTree } from "./host-tree.js";
import { expectOutpostError } from "./provider-assertions.js";
import { leaseCheck, withHostDirectory, type ProviderSuiteContext } from "./provider-suite-context.js";
import { shell, shellOk } from "./sandbox-shell.js";
import { assertSameTree, octal } from "./tree-difference.js";

/** upload / download: a faithful round trip, and refusal of everything that escapes. */
export function providerTransferTests(context: ProviderSuiteContext): void {
  leaseCheck(
    context,
    "round-trips a tree: binary files, mode 0751, awkward names, relative links, empty directories",
    async ({ lease }) => {
      await withHostDirectory(async (host) => {
        const source = join(host, "source");
        const back = join(host, "back");
        await mkdir(source);
        await writeFixtureTree(source);
        await lease.upload(source, "incoming");
        // Checked inside the sandbox, not on the host: the provider's placement may be remote.
        const every = sha256(await readFile(join(source, "every-byte.bin")));
        const report = await shellOk(
          lease,
          `digest() { set -- $(sha256sum "$1" 2>/dev/null); echo "$1"; }
         cd incoming || { echo "lost the whole tree"; exit 0; }
         [ "$(digest every-byte.bin)" = "$3" ] || echo "every-byte.bin lost or changed"
         [ -x tool.sh ] || echo "tool.sh lost its execute bits (0751 expected)"
         [ -d empty ] || echo "lost directory empty"
         [ -d "deep/deeper/empty too" ] || echo "lost directory deep/deeper/empty too"
         [ -L link-to-file ] || echo "link-to-file is not a link"
         [ -L link-to-directory ] || echo "link-to-directory is not a link"
         [ "$(digest link-to-file)" = "$3" ] || echo "link-to-file does not lead to every-byte.bin"
         [ -f "$1/$2" ] || echo "lost file $1/$2"`,
          [AWKWARD_DIRECTORY, AWKWARD_FILE, every],
        );
        assert.ok(report === "", `the uploaded tree differs inside the sandbox:\n  ${report.trim().split("\n").join("\n  ")}`);
        await lease.download("incoming", back);
        assertSameTree(await snapshotTree(back), await snapshotTree(source), "the tree changed on its way up and back");
      });
    },
  );

  leaseCheck(context, "uploads a tree of many files (600 in 20 folders) whole", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      const source = join(host, "many");
      const digests = new Map<string, string>();
      for (let folder = 0; folder < 20; folder++) await mkdir(join(source, `folder ${folder}`), { recursive: true });
      for (let index = 0; index < 600; index++) {
        const path = `./folder ${index % 20}/file-${index}.txt`;
        const content = Buffer.from(`file ${index}\n`.repeat(1 + (index % 7)));
        await writeFile(join(source, path), content);
        digests.set(path, sha256(content));
      }
      // sha256sum's lines, in the byte order of their paths (LC_ALL=C sort).
      const expected = [...digests.keys()]
        .sort((left, right) => Buffer.compare(Buffer.from(left), Buffer.from(right)))
        .map((path) => `${digests.get(path)}  ${path}`);
      // Large uploads may take another way through a provider than small ones (one packer per size), so
      // the kit's trees are sent once more in numbers; only the contents are checked here.
      await lease.upload(source, "many-files");
      const listed = await shellOk(lease, "cd many-files && find . -type f -exec sha256sum {} + | LC_ALL=C sort -k 2");
      assert.deepEqual(listed.trimEnd().split("\n"), expected, "the uploaded files differ inside the sandbox");
    });
  });

  leaseCheck(context, "uploads a 4 MiB binary file to the destination path and downloads it to a host path", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      const bytes = incompressibleBytes(4 * 1024 * 1024);
      await writeFile(join(host, "single.bin"), bytes);
      await chmod(join(host, "single.bin"), 0o751);
      await lease.upload(join(host, "single.bin"), "copied.bin");
      assert.equal(await shellOk(lease, 'set -- $(sha256sum copied.bin); echo "$1"'), `${sha256(bytes)}\n`);
      await lease.download("copied.bin", join(host, "back.bin"));
      assert.deepEqual(await readFile(join(host, "back.bin")), bytes);
      assert.equal(octal((await stat(join(host, "back.bin"))).mode & 0o777), "0751", "the downloaded file lost its mode");
    });
  });

  leaseCheck(context, "refuses relative paths that leave the root (code workspace)", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      await writeFile(join(host, "file.txt"), "x");
      const name = `outpost-kit-escape-${process.pid}-${Date.now()}`;
      await expectOutpostError(lease.upload(join(host, "file.txt"), `../${name}`), "workspace", "upload to ../");
      await expectOutpostError(lease.upload(host, `nested/../../${name}`), "workspace", "upload to nested/../../");
      await expectOutpostError(lease.download(`../${name}`, join(host, "out")), "workspace", "download from ../");
      assert.equal(await shellOk(lease, '[ -e "$1/../$2" ] && echo written || echo absent', [lease.root, name]), "absent\n");
    });
  });

  leaseCheck(context, "refuses an upload whose tree holds an absolute or escaping link, before writing anything", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      for (const [name, target] of [
        ["absolute", "/etc/passwd"],
        ["escaping", "../../outside"],
      ] as const) {
        const tree = join(host, name);
        await mkdir(join(tree, "a"), { recursive: true });
        await writeFile(join(tree, "a", "first.txt"), "first");
        await symlink(target, join(tree, "a", "bad-link"));
        await writeFile(join(tree, "z-last.txt"), "last");
        await expectOutpostError(lease.upload(tree, name), "workspace", `upload of a tree with an ${name} link`);
        assert.equal(
          await shellOk(lease, '[ -e "$1" ] && echo written || echo absent', [name]),
          "absent\n",
          `the refused ${name} upload wrote files`,
        );
      }
    });
  });

  leaseCheck(context, "refuses a download whose tree holds an absolute or escaping link, before writing anything", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      await shellOk(
        lease,
        "mkdir -p absolute/a escaping/a && echo x > absolute/a/first.txt && echo x > escaping/a/first.txt && ln -s /etc/passwd absolute/a/bad-link && ln -s ../../../outside escaping/a/bad-link",
      );
      for (const name of ["absolute", "escaping"]) {
        await expectOutpostError(lease.download(name, join(host, name)), "workspace", `download of a tree with an ${name} link`);
        const written = await readdir(join(host, name)).catch(() => []);
        assert.deepEqual(written, [], `the refused ${name} download wrote ${written.join(", ")}`);
      }
    });
  });

  leaseCheck(context, "a download never brings setuid, setgid or sticky bits to the host", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      await shellOk(lease, "mkdir -p special/shared && echo x > special/root-shell && echo y > special/shared/tool");
      await shellOk(lease, "chmod 4755 special/root-shell && chmod 2711 special/shared/tool && chmod 3777 special/shared");
      await lease.download("special", join(host, "special"));
      for (const [path, permissions] of [
        ["root-shell", 0o755],
        ["shared/tool", 0o711],
        ["shared", 0o777],
      ] as const) {
        const mode = (await stat(join(host, "special", path))).mode & 0o7777;
        assert.equal(octal(mode), octal(permissions), `${path} came back with mode ${octal(mode)} (only the permission bits travel)`);
      }
    });
  });

  leaseCheck(context, "refuses to upload through a link in the sandbox that leads outside (code workspace)", async ({ lease }) => {
    await withHostDirectory((host) =>
      withSandboxOutside(lease, async (outside) => {
        await writeFile(join(host, "file.txt"), "x");
        await mkdir(join(host, "tree", "sub"), { recursive: true });
        await writeFile(join(host, "tree", "sub", "evil.txt"), "evil");
        await shellOk(lease, 'ln -s "$1" exit-link && mkdir -p target && ln -s "$1" target/sub', [outside]);
        await expectOutpostError(
          lease.upload(join(host, "file.txt"), "exit-link/file.txt"),
          "workspace",
          "upload to a path through a link leaving the root",
        );
        await expectOutpostError(
          lease.upload(join(host, "tree"), "target"),
          "workspace",
          "upload of a tree into a destination holding a link that leaves it",
        );
        assert.equal(
          await shellOk(lease, 'for f in "$1"/* "$1"/.[!.]*; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done; true', [outside]),
          "",
          "a refused upload wrote outside through a link",
        );
      }),
    );
  });

  leaseCheck(
    context,
    "refuses to download into a host destination through a link that leads outside (code workspace)",
    async ({ lease }) => {
      await withHostDirectory(async (host) => {
        await mkdir(join(host, "outside"));
        await mkdir(join(host, "destination"));
        await symlink(join(host, "outside"), join(host, "destination", "sub"));
        await shellOk(lease, "mkdir -p tree/sub && echo evil > tree/sub/evil.txt");
        await expectOutpostError(
          lease.download("tree", join(host, "destination")),
          "workspace",
          "download into a destination holding a link that leaves it",
        );
        assert.deepEqual(await readdir(join(host, "outside")), [], "a refused download wrote outside through a link");
      });
    },
  );

  leaseCheck(context, "an aborted signal stops a transfer (code aborted)", async ({ lease }) => {
    await withHostDirectory(async (host) => {
      await writeFile(join(host, "file.txt"), "x");
      const controller = new AbortController();
      controller.abort(new Error("aborted before the transfer"));
      await expectOutpostError(
        lease.upload(join(host, "file.txt"), "aborted.txt", { signal: controller.signal }),
        "aborted",
        "upload with an aborted signal",
      );
      await expectOutpostError(
        lease.download("aborted.txt", join(host, "back.txt"), { signal: controller.signal }),
        "aborted",
        "download with an aborted signal",
      );
    });
  });
}

/**
 * Runs `body` with a fresh, empty sandbox directory outside the root (under home), for links that must
 * lead out; removes it afterwards, since a provider's home may outlive the lease.
 */
export async function withSandboxOutside(lease: SandboxLease, body: (outside: string) => Promise<void>): Promise<void> {
  const base = lease.home.startsWith(`${lease.root}/`) ? "/tmp" : lease.home;
  const path = `${base}/outpost-kit-outside-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await shellOk(lease, 'mkdir -p "$1"', [path]);
  try {
    await body(path);
  } finally {
    await shell(lease, 'rm -rf "$1"', [path]).catch(() => undefined);
  }
}
