import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it } from "vitest";
import Docker from "dockerode";
import { isOutpostError } from "@outpost/core";
import { dockerProvider } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { containerId, sh, withDockerLease } from "./docker-fixtures.js";

describeGated("docker hardening", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  for (const image of [TEST_IMAGE, BUSYBOX_IMAGE]) {
    it(`runs as a non-root user with no effective capabilities and no-new-privileges (${image})`, async () => {
      await withDockerLease({ image }, async (lease) => {
        const result = await sh(lease, "id -u; id -g; grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status");
        expect(result.status).toBe(0);
        const lines = result.stdout.trim().split("\n");
        expect(lines[0]).toBe("1000");
        expect(lines[1]).toBe("1000");
        expect(result.stdout).toMatch(/CapEff:\s+0000000000000000/);
        expect(result.stdout).toMatch(/CapBnd:\s+0000000000000000/);
        expect(result.stdout).toMatch(/NoNewPrivs:\s+1/);
      });
    });
  }

  it("runs an init process as pid 1, and the main process is not the command", async () => {
    await withDockerLease({}, async (lease) => {
      const result = await sh(lease, "cat /proc/1/cmdline | tr '\\0' ' '");
      expect(result.stdout).toMatch(/init/);
    });
  });

  it("never exposes the Docker socket inside the container", async () => {
    await withDockerLease({}, async (lease) => {
      const result = await sh(
        lease,
        "for s in /var/run/docker.sock /run/docker.sock; do [ -e $s ] && echo found $s; done; grep -c docker.sock /proc/mounts || true",
      );
      expect(result.stdout.trim()).toBe("0");
    });
  });

  it("refuses a volume that would expose the Docker socket (code configuration)", () => {
    for (const source of ["/var/run/docker.sock", "/run/docker.sock", "/var/run", "/run", "/"]) {
      try {
        dockerProvider({ volumes: [{ source, target: "/mnt" }] });
        expect.fail(`mounting ${source} was accepted`);
      } catch (error) {
        expect(isOutpostError(error, "configuration"), String(error)).toBe(true);
        expect((error as Error).message).toMatch(/Docker socket/);
      }
    }
  });

  it("gives a private tmpfs home, mode 0700, owned by the lease user, as HOME", async () => {
    await withDockerLease({}, async (lease) => {
      const result = await sh(lease, 'echo "$HOME"; stat -c "%a %u %g" "$HOME"; grep " $HOME " /proc/mounts');
      const [home, mode, mount] = result.stdout.trim().split("\n");
      expect(home).toBe(lease.home);
      expect(mode).toBe("700 1000 1000");
      expect(mount).toMatch(/^tmpfs \/home\/outpost tmpfs .*mode=700/);
      expect(mount).toMatch(/nosuid/);
    });
  });

  it("network none leaves only the loopback interface", async () => {
    await withDockerLease({ network: "none" }, async (lease) => {
      const result = await sh(lease, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
      expect(result.stdout.trim().split("\n")).toEqual(["lo"]);
    });
  });

  it("network host lets a command reach a server the test runs on 127.0.0.1 (as agent CLIs reach the model server)", async () => {
    const server = createServer((_request, response) => response.end("hello from the host"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await withDockerLease({ network: "host" }, async (lease) => {
        const script = `fetch("http://127.0.0.1:${port}/").then((r) => r.text()).then((t) => process.stdout.write(t))`;
        const result = await lease.invoke({ executable: "node", arguments: ["-e", script], deadlineMs: 20_000 });
        expect(result).toEqual({ status: 0, stdout: "hello from the host", stderr: "" });
      });
    } finally {
      server.close();
    }
  });

  it("applies cpus, memoryMb, pidsLimit, labels and variables to the container", async () => {
    const docker = new Docker();
    await withDockerLease(
      {
        cpus: 0.5,
        memoryMb: 256,
        pidsLimit: 64,
        labels: { "example.team": "outpost" },
        variables: { OUTPOST_TEST_FROM_CONFIG: "config ✓" },
      },
      async (lease) => {
        const info = await docker.getContainer(containerId(lease)).inspect();
        expect(info.HostConfig.NanoCpus).toBe(500_000_000);
        expect(info.HostConfig.Memory).toBe(256 * 1024 * 1024);
        expect(info.HostConfig.PidsLimit).toBe(64);
        expect(info.HostConfig.CapDrop).toEqual(["ALL"]);
        expect(info.HostConfig.SecurityOpt).toEqual(["no-new-privileges"]);
        expect(info.HostConfig.Init).toBe(true);
        expect(info.Config.Labels["example.team"]).toBe("outpost");
        expect(info.Config.Labels["dev.outpost.lease"]).toBe("1");
        expect(info.Config.Labels["dev.outpost.owner-pid"]).toBe(String(process.pid));
        const result = await sh(lease, 'printf %s "$OUTPOST_TEST_FROM_CONFIG"');
        expect(result.stdout).toBe("config ✓");
      },
    );
  });
});
