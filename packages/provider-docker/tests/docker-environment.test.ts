import { afterEach, beforeEach, expect, it } from "vitest";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { sh, withDockerLease } from "./docker-fixtures.js";

const SECRET = "docker-env-marker-4e0b";
let saved: string | undefined;
beforeEach(() => {
  saved = process.env.OUTPOST_TEST_SECRET;
  process.env.OUTPOST_TEST_SECRET = SECRET;
});
afterEach(() => {
  if (saved === undefined) delete process.env.OUTPOST_TEST_SECRET;
  else process.env.OUTPOST_TEST_SECRET = saved;
});

describeGated("docker environment", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  it("never hands the host's environment to the container: only the image's, HOME and declared variables", async () => {
    await withDockerLease(
      { variables: { FROM_PROVIDER: "provider" } },
      async (lease) => {
        const result = await lease.invoke({
          executable: "sh",
          arguments: ["-c", "env"],
          variables: { FROM_COMMAND: "command" },
          deadlineMs: 30_000,
        });
        expect(result.status).toBe(0);
        expect(result.stdout).not.toContain(SECRET);
        expect(result.stdout).toContain("FROM_PROVIDER=provider");
        expect(result.stdout).toContain("FROM_COMMAND=command");
        expect(result.stdout).toContain(`HOME=${lease.home}`);
        expect((await sh(lease, 'printf %s "${OUTPOST_TEST_SECRET-unset}"')).stdout).toBe("unset");
      },
      { variables: { FROM_CONTEXT: "context" } },
    );
  });
});
