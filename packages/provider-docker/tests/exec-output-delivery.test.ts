import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import type { LeaseSandbox } from "../src/lease-sandbox.js";
import { OperationGuard } from "@outpost/plugin-utils";
import { runExec } from "../src/run-exec.js";
import { BUSYBOX_IMAGE, describeGated, dockerGate } from "@outpost/testkit/gates";
import { withDockerLease } from "./docker-fixtures.js";

// The engine closes the exec connection as soon as its last bytes are read; frames still queued behind a
// slow consumer (a download unpacking to disk under load) must reach it before the exit is reported, or a
// download ends its archive early ("Unexpected end of data" from tar-stream, seen in CI).
describeGated("exec output delivery", await dockerGate({ images: [BUSYBOX_IMAGE] }), () => {
  it("a slow stdout consumer has every byte, in order, by the time runExec resolves", async () => {
    await withDockerLease({ image: BUSYBOX_IMAGE, mode: "isolated" }, async (lease) => {
      const sandbox = lease as unknown as LeaseSandbox;
      const line = "0123456789abcdef\n";
      const total = 256 * 1024;
      const expected = line.repeat(total / line.length + 1).slice(0, total);
      for (let round = 0; round < 2; round++) {
        const chunks: Buffer[] = [];
        const guard = new OperationGuard({ deadlineMs: 60_000 }, "the slow consumer test");
        try {
          const outcome = await runExec(sandbox, {
            argv: ["/bin/sh", "-c", `yes 0123456789abcdef | head -c ${total}`],
            directory: "/",
            onStdout: async (chunk) => {
              chunks.push(Buffer.from(chunk));
              await sleep(15);
            },
            onStderr: () => undefined,
            guard,
            what: "stream output to a slow consumer",
          });
          const received = Buffer.concat(chunks);
          expect(outcome.status).toBe(0);
          expect(received.length).toBe(total);
          expect(received.toString("latin1") === expected).toBe(true);
        } finally {
          guard.dispose();
        }
      }
    });
  });

  it("stderr queued behind a slow stdout consumer is delivered too", async () => {
    await withDockerLease({ image: BUSYBOX_IMAGE, mode: "isolated" }, async (lease) => {
      const sandbox = lease as unknown as LeaseSandbox;
      let stdout = 0;
      const stderr: Buffer[] = [];
      const guard = new OperationGuard({ deadlineMs: 60_000 }, "the stderr ordering test");
      try {
        const outcome = await runExec(sandbox, {
          argv: ["/bin/sh", "-c", "head -c 131072 /dev/zero; echo the-last-words >&2; exit 3"],
          directory: "/",
          onStdout: async (chunk) => {
            stdout += chunk.length;
            await sleep(20);
          },
          onStderr: (chunk) => void stderr.push(Buffer.from(chunk)),
          guard,
          what: "stream output then stderr",
        });
        expect(outcome.status).toBe(3);
        expect(stdout).toBe(131072);
        expect(Buffer.concat(stderr).toString()).toBe("the-last-words\n");
      } finally {
        guard.dispose();
      }
    });
  });
});
