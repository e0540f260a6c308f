import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import Docker from "dockerode";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";

const script = fileURLToPath(new URL("../../../tools/build-test-image.sh", import.meta.url));

describeGated("tools/build-test-image.sh", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  it("skips images whose content tag exists, prints the names, and :latest points at the hashed tag", async () => {
    const { stdout, stderr } = await promisify(execFile)("sh", [script], { timeout: 600_000 });
    const names = stdout.trim().split("\n");
    expect(names).toHaveLength(4);
    expect(names[0]).toMatch(/^outpost-busybox:[0-9a-f]{12}$/);
    expect(names[2]).toMatch(/^outpost-test:[0-9a-f]{12}$/);
    expect(stderr).toMatch(/outpost-busybox:[0-9a-f]{12} exists, skipping/);
    expect(stderr).toMatch(/outpost-test:[0-9a-f]{12} exists, skipping/);
    const docker = new Docker();
    for (const [hashed, latest] of [
      [names[0]!, "outpost-busybox:latest"],
      [names[2]!, "outpost-test:latest"],
    ] as const) {
      expect((await docker.getImage(hashed).inspect()).Id).toBe((await docker.getImage(latest).inspect()).Id);
    }
  }, 600_000);
});
