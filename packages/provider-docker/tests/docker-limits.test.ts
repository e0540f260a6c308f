import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import Docker from "dockerode";
import { dockerProvider } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { containerId, hostWorkspace, contextFor, sh, withDockerLease } from "./docker-fixtures.js";

// Spawns `sleep`s until the kernel refuses a fork, then reports how many it got and the error code.
const FORK_BOMB = `
const { spawn } = require("node:child_process");
let spawned = 0;
const next = () => {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  child.on("error", (error) => { console.log(spawned + " " + error.code); process.exit(0); });
  child.on("spawn", () => { spawned += 1; if (spawned >= 5000) { console.log(spawned + " unbounded"); process.exit(1); } next(); });
};
next();
`;

describeGated("docker limits by default", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  it("bounds pids, memory (no swap on top) and CPUs, and mounts the root filesystem read-only, with no option given", async () => {
    const docker = new Docker();
    const engineCpus = ((await docker.info()) as { NCPU: number }).NCPU;
    await withDockerLease({}, async (lease) => {
      const info = await docker.getContainer(containerId(lease)).inspect();
      expect(info.HostConfig.PidsLimit).toBe(1024);
      expect(info.HostConfig.Memory).toBe(4096 * 1024 * 1024);
      expect(info.HostConfig.MemorySwap).toBe(4096 * 1024 * 1024);
      expect(info.HostConfig.NanoCpus).toBe(Math.min(2, engineCpus) * 1e9);
      expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    });
  });

  it("read-only root filesystem: the image cannot be changed; the root, the home and /tmp stay writable", async () => {
    await withDockerLease({}, async (lease) => {
      // /var/tmp is world-writable in the image: only the read-only mount stops the write.
      const refused = await sh(lease, "stat -c %a /var/tmp; touch /var/tmp/planted");
      expect(refused.stdout).toBe("1777\n");
      expect(refused.stderr).toMatch(/Read-only file system/);
      const written = await sh(lease, 'for d in "$PWD" "$HOME" /tmp; do echo x > "$d/outpost-probe" && echo ok; done; stat -c %a /tmp');
      expect(written.stdout).toBe("ok\nok\nok\n1777\n");
    });
  });

  it("a fork bomb inside the container meets its pids limit (EAGAIN) and the host keeps spawning processes", async () => {
    await withDockerLease({ pidsLimit: 64 }, async (lease) => {
      const bomb = await lease.invoke({ executable: "node", arguments: ["-e", FORK_BOMB], deadlineMs: 20_000 });
      const [count, code] = bomb.stdout.trim().split(" ");
      expect(code).toBe("EAGAIN");
      expect(Number(count)).toBeGreaterThan(10);
      expect(Number(count)).toBeLessThan(64);
      // The host is unaffected: it still starts processes while the sleeps hold the container's limit.
      expect(execFileSync("sh", ["-c", "echo host alive"], { encoding: "utf8" })).toBe("host alive\n");
      const held = await sh(lease, "cat /sys/fs/cgroup/pids.current 2>/dev/null || cat /sys/fs/cgroup/pids/pids.current");
      expect(Number(held.stdout.trim())).toBeGreaterThan(10);
    });
  }, 30_000);

  it("options override the defaults; isolated mode keeps a writable root filesystem (it copies the worktree into it)", async () => {
    const docker = new Docker();
    await withDockerLease({ readOnlyRootFilesystem: false, memoryMb: 512, pidsLimit: 200, cpus: 1 }, async (lease) => {
      const info = await docker.getContainer(containerId(lease)).inspect();
      expect(info.HostConfig).toMatchObject({ ReadonlyRootfs: false, Memory: 512 * 1024 * 1024, PidsLimit: 200, NanoCpus: 1e9 });
      expect((await sh(lease, "touch /var/tmp/probe && echo ok")).stdout).toBe("ok\n");
    });
    const scratch = await hostWorkspace();
    try {
      const lease = await dockerProvider({ mode: "isolated", network: "none" }).acquire(contextFor(scratch.directory));
      try {
        const info = await docker.getContainer(containerId(lease)).inspect();
        expect(info.HostConfig.ReadonlyRootfs).toBe(false);
        expect(info.HostConfig.PidsLimit).toBe(1024);
      } finally {
        await lease.release();
      }
    } finally {
      await scratch.dispose();
    }
  });
});
