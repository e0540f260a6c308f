import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import Docker from "dockerode";
import { isOutpostError } from "@outpost/core";
import { LEASE_LABEL, dockerProvider, reap } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { containerId, contextFor, hostWorkspace, sh, withDockerLease } from "./docker-fixtures.js";

const docker = new Docker();

async function labelled(id: string): Promise<Docker.ContainerInfo[]> {
  const all = await docker.listContainers({ all: true, filters: { label: [`${LEASE_LABEL}=1`] } });
  return all.filter((info) => info.Id === id);
}

describeGated("docker lease lifecycle", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  it("a deadline kills a grandchild inside the container, not the container", async () => {
    await withDockerLease({}, async (lease) => {
      let started = false;
      const run = lease.invoke({
        executable: "sh",
        arguments: ["-c", "sh -c 'trap \"\" TERM; sleep 301 & sleep 302' & sleep 0.3; ps -eo args | grep -c '^sleep 30[12]'; wait"],
        deadlineMs: 1500,
        observe: (_channel, text) => (started ||= text.includes("2")),
      });
      await expect(run).rejects.toSatisfy((error) => isOutpostError(error, "timeout"));
      expect(started, "both grandchildren were running before the deadline").toBe(true);
      const ps = await sh(lease, "ps -eo pid,args");
      expect(ps.status).toBe(0);
      expect(ps.stdout).not.toMatch(/sleep 30[12]/);
      expect(ps.stdout).toMatch(/sleep 2147483647/); // the container's main process is untouched
    });
  });

  it("a deadline that passes while the exec is still being created still kills the command", async () => {
    await withDockerLease({ image: BUSYBOX_IMAGE }, async (lease) => {
      for (const deadlineMs of [0, 1, 5, 20]) {
        const run = lease.invoke({ executable: "sleep", arguments: ["304"], deadlineMs });
        await expect(run).rejects.toSatisfy((error) => isOutpostError(error, "timeout"));
      }
      const ps = await sh(lease, "ps -o args");
      expect(ps.stdout).not.toMatch(/sleep 304/);
    });
  });

  it("an abort kills a process that left the group with setsid, and the lease keeps working", async () => {
    await withDockerLease({}, async (lease) => {
      const controller = new AbortController();
      const run = lease.invoke({
        executable: "sh",
        arguments: ["-c", "setsid sleep 303 & echo ready; wait"],
        signal: controller.signal,
        observe: (_channel, text) => text.includes("ready") && controller.abort(new Error("test abort")),
      });
      await expect(run).rejects.toSatisfy((error) => isOutpostError(error, "aborted"));
      const ps = await sh(lease, "ps -eo pid,args");
      expect(ps.stdout).not.toMatch(/sleep 303/);
      expect((await sh(lease, "echo usable")).stdout).toBe("usable\n");
    });
  });

  it("release() removes the container and its anonymous volumes; nothing labelled remains", async () => {
    const workspace = await hostWorkspace();
    try {
      const lease = await dockerProvider({ image: BUSYBOX_IMAGE, network: "none" }).acquire(contextFor(workspace.directory));
      const id = containerId(lease);
      expect(await labelled(id)).toHaveLength(1);
      await lease.release();
      await lease.release();
      expect(await labelled(id)).toEqual([]);
      await expect(docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      await workspace.dispose();
    }
  });

  it("release() also removes the anonymous volumes the image declares", async () => {
    const tag = `outpost-test-volume:${process.pid}`;
    const base = await docker.createContainer({ Image: BUSYBOX_IMAGE, Cmd: ["true"] });
    await base.commit({ repo: "outpost-test-volume", tag: String(process.pid), changes: "VOLUME /cache" });
    await base.remove({ force: true });
    const workspace = await hostWorkspace();
    try {
      const lease = await dockerProvider({ image: tag, network: "none" }).acquire(contextFor(workspace.directory));
      const info = await docker.getContainer(containerId(lease)).inspect();
      const volume = info.Mounts.find((mount) => mount.Destination === "/cache");
      expect(volume?.Type).toBe("volume");
      await docker.getVolume(volume!.Name!).inspect();
      await lease.release();
      await expect(docker.getVolume(volume!.Name!).inspect()).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      await workspace.dispose();
      await docker
        .getImage(tag)
        .remove({ force: true })
        .catch(() => undefined);
    }
  });

  it("retain: true keeps the stopped container after release; reap leaves it unless asked", async () => {
    const workspace = await hostWorkspace();
    let id = "";
    try {
      const lease = await dockerProvider({ image: BUSYBOX_IMAGE, network: "none", retain: true }).acquire(contextFor(workspace.directory));
      id = containerId(lease);
      await lease.release();
      const info = await docker.getContainer(id).inspect();
      expect(info.State.Running).toBe(false);
      expect(info.Config.Labels["dev.outpost.retain"]).toBe("1");
    } finally {
      if (id !== "")
        await docker
          .getContainer(id)
          .remove({ force: true, v: true })
          .catch(() => undefined);
      await workspace.dispose();
    }
  });

  it("reap() removes the container of a host process that crashed before release", async () => {
    const workspace = await hostWorkspace();
    try {
      const script = fileURLToPath(new URL("./fixtures/crashing-host.ts", import.meta.url));
      const child = spawn(process.execPath, ["--conditions=outpost-source", "--import", "tsx", script, TEST_IMAGE, workspace.directory], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      const id = await new Promise<string>((resolve, reject) => {
        let output = "";
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes("\n")) resolve(output.trim());
        });
        child.once("exit", (code) => reject(new Error(`the crashing host exited early with ${code}`)));
      });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
      expect(await labelled(id)).toHaveLength(1);
      const removed = await reap();
      expect(removed).toContain(id);
      expect(await labelled(id)).toEqual([]);
    } finally {
      await workspace.dispose();
    }
  }, 60_000);

  it("reap() leaves the containers of live owners alone", async () => {
    await withDockerLease({ image: BUSYBOX_IMAGE }, async (lease) => {
      const removed = await reap();
      expect(removed).not.toContain(containerId(lease));
      expect((await sh(lease, "echo alive")).stdout).toBe("alive\n");
    });
  });
});
