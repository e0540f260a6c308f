import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { hostWorkspace, sh, withDockerLease } from "./docker-fixtures.js";

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

describeGated("docker transfers", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  for (const image of [TEST_IMAGE, BUSYBOX_IMAGE]) {
    it(`manifest of nested named paths hashes inside the container and batches move only them (${image})`, async () => {
      await withDockerLease({ image, mode: "isolated" }, async (lease) => {
        await sh(
          lease,
          "mkdir -p a/b c && printf one > a/b/one.txt && printf two > a/b/two.txt && printf three > c/three.txt && ln -s one.txt a/b/link && chmod 640 a/b/two.txt",
        );
        const entries = await lease.fileTransfers!.manifest(".", ["a/b/two.txt", "a/b/link", "c"]);
        expect(entries).toEqual([
          { path: "a/b/link", kind: "link", mode: 0o777, size: 7, sha256: sha256("one.txt") },
          { path: "a/b/two.txt", kind: "file", mode: 0o640, size: 3, sha256: sha256("two") },
          { path: "c/three.txt", kind: "file", mode: 0o644, size: 5, sha256: sha256("three") },
        ]);
        const host = await hostWorkspace();
        try {
          await lease.fileTransfers!.downloadBatch(".", entries.slice(1), host.directory);
          expect(await readFile(join(host.directory, "a/b/two.txt"), "utf8")).toBe("two");
          expect(await readFile(join(host.directory, "c/three.txt"), "utf8")).toBe("three");
          await expect(readFile(join(host.directory, "a/b/one.txt"))).rejects.toThrow();
          await writeFile(join(host.directory, "c/three.txt"), "THREE!");
          await lease.fileTransfers!.uploadBatch!(
            host.directory,
            [{ path: "c/three.txt", kind: "file", mode: 0o600, size: 6, sha256: sha256("THREE!") }],
            "copy",
          );
          expect(
            (await sh(lease, "cat copy/c/three.txt; stat -c ' %a' copy/c/three.txt; ls copy | wc -l")).stdout.replace(/\s+/g, " ").trim(),
          ).toBe("THREE! 600 1");
        } finally {
          await host.dispose();
        }
      });
    });
  }

  it("manifest hashes awkward names (backslash, pipe, spaces, unicode) with GNU and busybox tools alike", async () => {
    for (const image of [TEST_IMAGE, BUSYBOX_IMAGE]) {
      await withDockerLease({ image, mode: "isolated" }, async (lease) => {
        const names = ["back\\slash", "pipe|name", "two  spaces", "ünï cødé ✓"];
        await lease.invoke({
          executable: "sh",
          arguments: ["-c", 'mkdir odd && for n; do printf "%s" "$n" > "odd/$n"; done', "sh", ...names],
        });
        const entries = await lease.fileTransfers!.manifest(".", ["odd"]);
        expect(entries.map((entry) => [entry.path, entry.sha256])).toEqual(names.map((name) => [`odd/${name}`, sha256(name)]).sort());
      });
    }
  });

  it("a 24 MiB binary file round-trips byte-exact through upload and download", async () => {
    const host = await hostWorkspace();
    try {
      const bytes = randomBytes(24 * 1024 * 1024);
      await writeFile(join(host.directory, "big.bin"), bytes);
      await withDockerLease({ image: BUSYBOX_IMAGE, mode: "isolated" }, async (lease) => {
        await lease.upload(join(host.directory, "big.bin"), "in/big.bin");
        expect((await sh(lease, "sha256sum in/big.bin")).stdout.slice(0, 64)).toBe(sha256(bytes));
        await lease.download("in", join(host.directory, "back"));
        expect(sha256(await readFile(join(host.directory, "back", "big.bin")))).toBe(sha256(bytes));
      });
    } finally {
      await host.dispose();
    }
  });

  it("concurrent uploads, downloads and commands on one lease do not mix up their streams", async () => {
    const host = await hostWorkspace();
    try {
      for (let index = 0; index < 4; index++) {
        await mkdir(join(host.directory, `tree-${index}`, "sub"), { recursive: true });
        await writeFile(join(host.directory, `tree-${index}`, "sub", "file.txt"), `tree ${index}\n`.repeat(1000));
      }
      await withDockerLease({ image: BUSYBOX_IMAGE, mode: "isolated" }, async (lease) => {
        await Promise.all(
          [0, 1, 2, 3].map(async (index) => {
            await lease.upload(join(host.directory, `tree-${index}`), `dest-${index}`);
            const result = await sh(lease, `cat dest-${index}/sub/file.txt | sort -u`);
            expect(result.stdout).toBe(`tree ${index}\n`);
            await lease.download(`dest-${index}`, join(host.directory, `back-${index}`));
            expect(await readFile(join(host.directory, `back-${index}`, "sub", "file.txt"), "utf8")).toBe(`tree ${index}\n`.repeat(1000));
          }),
        );
      });
    } finally {
      await host.dispose();
    }
  });

  it("refuses uploads into the home through a link that leaves it, and manifest paths through links", async () => {
    const host = await hostWorkspace();
    try {
      await writeFile(join(host.directory, "payload"), "x");
      await withDockerLease({ image: BUSYBOX_IMAGE, mode: "isolated" }, async (lease) => {
        await sh(lease, 'ln -s /tmp "$HOME/out" && mkdir real && ln -s real alias && printf y > real/file');
        const home = await lease.upload(host.directory, `${lease.home}/out/inner`).catch((error: unknown) => error);
        expect(isOutpostError(home, "workspace"), String(home)).toBe(true);
        expect((await sh(lease, "ls /tmp | grep -c payload || true")).stdout.trim()).toBe("0");
        const manifest = await lease.fileTransfers!.manifest(".", ["alias/file"]).catch((error: unknown) => error);
        expect(isOutpostError(manifest, "workspace"), String(manifest)).toBe(true);
        const missing = await lease.fileTransfers!.manifest(".", ["nope"]).catch((error: unknown) => error);
        expect(isOutpostError(missing, "workspace"), String(missing)).toBe(true);
        await sh(lease, "mkdir pipes && mkfifo pipes/fifo");
        const special = await lease.fileTransfers!.manifest(".", ["pipes"]).catch((error: unknown) => error);
        expect(isOutpostError(special, "workspace"), String(special)).toBe(true);
        expect((special as Error).message).toMatch(/special files/);
      });
    } finally {
      await host.dispose();
    }
  });
});
