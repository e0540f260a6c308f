import { expect, it } from "vitest";
import Docker from "dockerode";
import { isOutpostError } from "@outpost/core";
import { descriptor, dockerProvider, removeSandbox } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { containerId, contextFor, hostWorkspace, sh } from "./docker-fixtures.js";

const docker = new Docker();

// How `outpost clean` reaches a dead isolated run's commits: the `sandbox` option leases its container again.
describeGated(
  "the sandbox option leases an earlier lease's container again",
  await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }),
  () => {
    it("a stopped isolated container is started again with its files, its root, home and user; retained, release keeps it", async () => {
      const workspace = await hostWorkspace();
      const first = await dockerProvider({ image: TEST_IMAGE, mode: "isolated", network: "none", root: "/srv/work" }).acquire(
        contextFor(workspace.directory),
      );
      const id = containerId(first);
      try {
        expect((await sh(first, "echo kept > left.txt")).status).toBe(0);
        // The lease's owner died: nothing released it; the engine stopped it meanwhile.
        await docker.getContainer(id).kill();
        const again = await descriptor.createProvider({ sandbox: id, retain: true, mode: "isolated" });
        const lease = await again.acquire(contextFor(workspace.directory));
        expect(lease.root).toBe("/srv/work");
        expect(lease.home).toBe(first.home);
        const read = await sh(lease, 'cat left.txt; id -u; printf %s "$HOME"');
        expect(read.stdout.split("\n")).toEqual(["kept", "1000", first.home]);
        await lease.release();
        // Retained: stopped at most, still there with its files for the next try.
        const inspected = await docker.getContainer(id).inspect();
        expect(inspected.Id).toBe(id);
      } finally {
        await removeSandbox(id);
        await workspace.dispose();
      }
    });

    it("a container outpost did not make is refused, and so is a malformed id", async () => {
      const foreign = await docker.createContainer({ Image: BUSYBOX_IMAGE, Cmd: ["sleep", "300"] });
      try {
        const workspace = await hostWorkspace();
        const reuse = (sandbox: string) => dockerProvider({ sandbox }).acquire(contextFor(workspace.directory));
        await expect(reuse(foreign.id)).rejects.toSatisfy(
          (error) => isOutpostError(error, "configuration") && /was not made by outpost/.test((error as Error).message),
        );
        await expect(reuse("../../etc")).rejects.toSatisfy((error) => isOutpostError(error, "configuration"));
        expect((await foreign.inspect()).State.Running).toBe(false);
        await workspace.dispose();
      } finally {
        await foreign.remove({ force: true });
      }
    });
  },
);
