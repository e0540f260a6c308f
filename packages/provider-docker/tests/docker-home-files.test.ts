import { expect, it } from "vitest";
import { isOutpostError, type SandboxLease } from "@outpost/core";
import { dockerProvider } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { sh, withDockerLease } from "./docker-fixtures.js";

// Command.homeFiles travel with the command: the exec that runs it writes them first (no upload before it).
describeGated("Docker command home files", await dockerGate({ images: [BUSYBOX_IMAGE, TEST_IMAGE] }), () => {
  it("declares the capability on the provider and the lease", async () => {
    expect(dockerProvider().capabilities?.homeFiles).toBe(true);
    await withDockerLease({ image: BUSYBOX_IMAGE }, async (lease) => expect(lease.homeFiles).toBe(true));
  });

  for (const image of [BUSYBOX_IMAGE, TEST_IMAGE]) {
    it(`${image}: the command finds them written, 0600 in 0700 directories; the last of a path given twice wins; stdin is untouched`, async () => {
      await withDockerLease({ image }, async (lease) => {
        const binary = "a\0b\n'\"$(x)\\";
        const result = await lease.invoke({
          executable: "sh",
          arguments: [
            "-c",
            'cat ~/.tool/nested/settings.json; echo; od -An -c ~/top | tr -s " "; stat -c "%a %n" ~/.tool ~/.tool/nested ~/.tool/nested/*; cat',
          ],
          stdin: "the agent's own stdin\n",
          homeFiles: [
            { path: ".tool/nested/settings.json", content: "first" },
            { path: "./top", content: binary },
            { path: ".tool//nested/settings.json", content: "last ✓" },
          ],
        });
        expect(result.stderr).toBe("");
        expect(result.status).toBe(0);
        const lines = result.stdout.split("\n");
        expect(lines[0]).toBe("last ✓");
        expect(lines[1]!.trim()).toBe(`a \\0 b \\n ' " $ ( x ) \\`);
        expect(lines.slice(2, 5)).toEqual([
          `700 ${lease.home}/.tool`,
          `700 ${lease.home}/.tool/nested`,
          `600 ${lease.home}/.tool/nested/settings.json`,
        ]);
        expect(lines[5]).toBe("the agent's own stdin");
        // A second command replaces a file it wrote before, and resets a mode the agent widened.
        await sh(lease, "chmod 755 ~/.tool && chmod 644 ~/top");
        const again = await lease.invoke({
          executable: "sh",
          arguments: ["-c", "cat ~/top; stat -c %a ~/.tool ~/top"],
          homeFiles: [
            { path: "top", content: "v2" },
            { path: ".tool/x", content: "" },
          ],
        });
        expect(again.stdout).toBe("v2700\n600\n");
      });
    });
  }

  const refusals: readonly (readonly [string, string, string])[] = [
    ["a link at the file's path", "ln -s /tmp/outside ~/settings.json", "settings.json"],
    ["a parent link leading out of the home", "mkdir -p /tmp/outside && ln -s /tmp/outside ~/.tool", ".tool/settings.json"],
    ["a parent link leading inside the home", "mkdir ~/real && ln -s real ~/.tool", ".tool/settings.json"],
    ["a deeper parent link", "mkdir -p ~/.tool && ln -s /tmp/outside ~/.tool/nested", ".tool/nested/deeper/settings.json"],
    ["a dangling link at the file's path", "ln -s /tmp/missing/file ~/settings.json", "settings.json"],
    ["a parent that is a file", "echo x > ~/.tool", ".tool/settings.json"],
    ["a directory at the file's path", "mkdir -p ~/settings.json", "settings.json"],
    ["a pipe at the file's path", "mkfifo ~/settings.json", "settings.json"],
  ];
  for (const [what, plant, path] of refusals) {
    it(`refuses ${what} (workspace): nothing is written through it and the command does not run`, async () => {
      await withDockerLease({ image: BUSYBOX_IMAGE }, async (lease) => {
        expect((await sh(lease, `mkdir -p /tmp/outside && ${plant}`)).status).toBe(0);
        const error = await lease
          .invoke({ executable: "sh", arguments: ["-c", "touch /tmp/ran"], homeFiles: [{ path, content: "planted?" }] })
          .catch((failure: unknown) => failure);
        expect(isOutpostError(error, "workspace"), String(error)).toBe(true);
        expect(String(error)).toContain("did not start");
        const after = await sh(
          lease,
          "find /tmp/outside ~/real -mindepth 1 2>/dev/null; [ -e /tmp/ran ] && echo ran; [ -e /tmp/missing ] && echo followed; true",
        );
        expect(after.stdout).toBe("");
        // The lease keeps working after a refusal.
        expect((await sh(lease, "echo ok")).stdout).toBe("ok\n");
      });
    });
  }

  it("refuses paths that leave the home or name it before any exec (workspace)", async () => {
    await withDockerLease({ image: BUSYBOX_IMAGE }, async (lease) => {
      for (const path of ["../escape", "/etc/passwd", "a/../../escape", "", "."]) {
        const error = await lease.invoke({ executable: "true", homeFiles: [{ path, content: "x" }] }).catch((failure: unknown) => failure);
        expect(isOutpostError(error, "workspace"), `${path}: ${String(error)}`).toBe(true);
      }
      expect((await sh(lease, "ls -A ~ /home | sort -u")).stdout).not.toContain("escape");
    });
  });

  it("commands keep working when the standby exec dies; arguments and stdin of any size and bytes pass whole", async () => {
    await withDockerLease({ image: BUSYBOX_IMAGE }, async (lease: SandboxLease) => {
      // Kills the standby the lease started for the next command, once it is there: that command must still run.
      // It starts while this command runs long (WARM_AFTER_MS), so the loop waits for it.
      const killOne =
        'for p in /proc/[0-9]*; do [ "$(tr "\\0" "\\n" < $p/cmdline 2>/dev/null | tail -n 1)" = outpost ] && kill -9 "${p#/proc/}" && echo killed && exit 0; done';
      const killed = await sh(lease, `for i in $(seq 100); do ${killOne}; sleep 0.1; done`);
      expect(killed.stdout).toBe("killed\n");
      // One argument may hold up to 128 KiB (the kernel's limit for any exec).
      const argument = `x'y"z\n${"0123456789".repeat(12_000)}`;
      const input = `${"stdin line\n".repeat(30_000)}end`;
      const result = await lease.invoke({
        executable: "sh",
        arguments: ["-c", 'printf %s "$1" | wc -c | tr -d " "; wc -c | tr -d " "; printf %s "$V"', "sh", argument],
        stdin: input,
        variables: { V: "v'\n\"$HOME" },
      });
      expect(result.stdout, result.stderr).toBe(`${Buffer.byteLength(argument)}\n${Buffer.byteLength(input)}\nv'\n"$HOME`);
    });
  });
});
