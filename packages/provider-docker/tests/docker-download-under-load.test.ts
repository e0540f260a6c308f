import { createHash } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { isOutpostError, type SandboxLease } from "@outpost/core";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { hostWorkspace, sh, withDockerLease } from "./docker-fixtures.js";

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const PADDING = ".".repeat(60);

/** Every complete line is the writer's next line; the last piece, if any, is the start of the one after. */
function expectWriterPrefix(text: string): void {
  const lines = text.split("\n");
  const last = lines.pop()!;
  lines.forEach((line, index) => {
    if (line !== `line ${index} ${PADDING}`) expect.fail(`line ${index} is ${JSON.stringify(line.slice(0, 80))}`);
  });
  expect(`line ${lines.length} ${PADDING}`.startsWith(last)).toBe(true);
}

async function hostFiles(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) found.push(relative(directory, join(entry.parentPath, entry.name)));
  }
  return found.sort();
}

/** Starts a detached writer appending numbered lines to `log/t.jsonl` until `log/stop` exists. */
async function startWriter(lease: SandboxLease): Promise<void> {
  const writer = `i=0; while [ ! -e log/stop ]; do echo "line $i ${PADDING}"; i=$((i+1)); done >> log/t.jsonl`;
  await sh(
    lease,
    `mkdir -p log && : > log/t.jsonl && (sh -c '${writer}' </dev/null >/dev/null 2>&1 &) && until [ "$(wc -c < log/t.jsonl)" -gt 100000 ]; do sleep 0.05; done`,
  );
}

describeGated("downloads while the sandbox is busy", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  for (const image of [TEST_IMAGE, BUSYBOX_IMAGE]) {
    it(`a file being appended to downloads as a clean prefix, or fails with tar's own complaint (${image})`, async () => {
      const host = await hostWorkspace();
      try {
        await withDockerLease({ image, mode: "isolated" }, async (lease) => {
          await startWriter(lease);
          const outcomes: string[] = [];
          try {
            for (let round = 0; round < 4; round++) {
              for (const [source, file] of [
                ["log/t.jsonl", `file-${round}.jsonl`],
                ["log", `dir-${round}/t.jsonl`],
              ] as const) {
                const destination = join(host.directory, source === "log" ? `dir-${round}` : file);
                const error = await lease.download(source, destination).then(
                  () => undefined,
                  (failure: unknown) => failure,
                );
                if (error === undefined) {
                  expectWriterPrefix(await readFile(join(host.directory, file), "utf8"));
                  outcomes.push("copied");
                } else {
                  // GNU tar notices the growth and exits 1; the message must carry that and say what to do.
                  expect(isOutpostError(error) && error.code).toBe("workspace");
                  expect((error as Error).message).toMatch(
                    /file changed as we read it.*status 1\)\. Something in the sandbox is still writing there/,
                  );
                  expect((error as { details?: unknown }).details).toMatchObject({ changedWhileRead: true });
                  outcomes.push("refused");
                }
              }
            }
          } finally {
            await sh(lease, "touch log/stop");
          }
          expect(outcomes).toHaveLength(8);
          // Once the writer stopped, the same downloads succeed whole.
          await sh(lease, "sleep 0.2");
          await lease.download("log", join(host.directory, "final"));
          const final = await readFile(join(host.directory, "final", "t.jsonl"), "utf8");
          expectWriterPrefix(final);
          expect((await sh(lease, "sha256sum log/t.jsonl")).stdout.slice(0, 64)).toBe(sha256(Buffer.from(final)));
        });
      } finally {
        await host.dispose();
      }
      // The writer never pauses, so each round downloads more: on a loaded machine this takes far longer.
    }, 180_000);
  }

  it("a large tree downloads byte-exact three times at once while other execs stream output", async () => {
    const host = await hostWorkspace();
    try {
      await withDockerLease({ image: BUSYBOX_IMAGE, mode: "isolated" }, async (lease) => {
        await sh(
          lease,
          "mkdir tree && cd tree && for d in 1 2 3 4 5 6 7 8; do mkdir d$d; for f in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 " +
            "18 19 20; do head -c $((d * 1000 + f * 37)) /dev/urandom > d$d/f$f; done; done && head -c 6000000 /dev/urandom > big.bin",
          { deadlineMs: 60_000 },
        );
        const listing = (await sh(lease, "cd tree && find . -type f | sort | xargs sha256sum")).stdout.trim().split("\n");
        const expected = new Map(listing.map((line) => [line.slice(66).replace(/^\.\//, ""), line.slice(0, 64)]));
        expect(expected.size).toBe(161);
        const noise = [0, 1, 2].map(async (index) => {
          const result = await lease.invoke({
            executable: "sh",
            arguments: ["-c", `yes noise-${index} | head -c 3000000 | sha256sum`],
            deadlineMs: 60_000,
          });
          expect(result.stdout.slice(0, 64)).toBe(sha256(Buffer.from(`noise-${index}\n`.repeat(375_000))));
        });
        const downloads = [0, 1, 2].map(async (index) => {
          const destination = join(host.directory, `copy-${index}`);
          await lease.download("tree", destination, { deadlineMs: 120_000 });
          const files = await hostFiles(destination);
          expect(files).toEqual([...expected.keys()].sort());
          for (const file of files) expect(sha256(await readFile(join(destination, file))), file).toBe(expected.get(file));
        });
        await Promise.all([...noise, ...downloads]);
      });
    } finally {
      await host.dispose();
    }
  });
});
