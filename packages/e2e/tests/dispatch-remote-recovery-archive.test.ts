import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import type { Transport } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { fsTransport } from "@outpost/transport-fs";
import { s3Transport } from "@outpost/transport-s3";
import { s3Gate } from "@outpost/testkit/gates";
import { dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { isolatedDocker } from "./support/isolated-docker.js";

const docker = dockerGate();
const s3 = await s3Gate();
const { provider, agentWith } = isolatedDocker();

afterAll(async () => {
  await s3.server?.stop();
});

interface Manifest {
  readonly archiveRestore: string;
  readonly files: readonly { readonly path: string; readonly sha256: string }[];
}

/**
 * The host branch moves during the run, so nothing is applied and the backup is what keeps the work: it must be
 * in the transport whole (every manifest SHA-256 verifies) and restorable by the manifest's documented command.
 */
async function conflictArchivedTo(transport: Transport): Promise<void> {
  const repository = scratchRepository();
  let moved = "";
  const error = await dispatch({
    agent: agentWith({ FILE: "remote.txt", DELAY_MS: "1500" }),
    brief: "x",
    repository,
    sandboxProvider: provider(),
    branch: { mode: "named", name: "feature" },
    recoveryTransport: transport,
    // An untracked file in the worktree: the backup keeps it.
    hooks: { workspaceReady: ["echo host only > untracked.txt"] },
    observe: () => {
      if (moved) return;
      const tree = gitIn(repository, "rev-parse", "feature^{tree}");
      moved = gitIn(repository, "commit-tree", tree, "-p", "feature", "-m", "moved on the host");
      gitIn(repository, "update-ref", "refs/heads/feature", moved);
    },
  }).then(
    () => undefined,
    (caught: unknown) => caught as { code: string; details: { recovery?: { dispatchId: string } } & Record<string, unknown> },
  );
  expect(error?.code).toBe("conflict");
  const dispatchId = /recovery[/\\]([0-9a-f-]{36})/.exec(String(error!.details.recoveryLocation))![1]!;
  const archived = await transport.read(`recovery/${dispatchId}/backup.tar`);
  expect(archived).toBeDefined();
  const extracted = mkdtempSync(join(tmpdir(), "outpost-archive-"));
  writeFileSync(join(extracted, "backup.tar"), archived!.bytes);
  execFileSync("tar", ["-xf", "backup.tar"], { cwd: extracted });
  const manifest = JSON.parse(readFileSync(join(extracted, "manifest.json"), "utf8")) as Manifest;
  expect(manifest.files.map((file) => file.path).sort()).toEqual(["host.patch", "untracked/untracked.txt", "work.bundle"]);
  for (const file of manifest.files)
    expect(
      createHash("sha256")
        .update(readFileSync(join(extracted, file.path)))
        .digest("hex"),
      file.path,
    ).toBe(file.sha256);
  // The documented command, with the extracted directory for <extracted>, restores the work as a branch of its own.
  const restore = manifest.archiveRestore.replace("<extracted>", extracted);
  gitIn(repository, ...restore.replace(/^git /, "").split(" "));
  const restored = gitIn(repository, "for-each-ref", "--format=%(refname:short)", "refs/heads/outpost-recovered-*");
  expect(gitIn(repository, "show", `${restored}:remote.txt`)).toContain("script agent");
  expect(gitIn(repository, "rev-parse", "feature")).toBe(moved);
}

(docker.unavailable ? describe.skip : describe)(
  `recoveryTransport on Docker isolated${docker.unavailable ? ` (unavailable: ${docker.unavailable.reason})` : ""}`,
  () => {
    it("archives the recovery backup to transport-fs: complete, verified and restorable", async () => {
      await conflictArchivedTo(fsTransport({ directory: mkdtempSync(join(tmpdir(), "outpost-recovery-fs-")) }));
    }, 120_000);

    (s3.server ? it : it.skip)(
      "archives the recovery backup to S3 (moto): complete, verified and restorable",
      async () => {
        const server = s3.server!;
        await server.createBucket("recovery");
        const client = new S3Client(server.clientSettings());
        server.onStop(() => client.destroy());
        await conflictArchivedTo(s3Transport({ client, bucket: "recovery", prefix: "team" }));
      },
      120_000,
    );

    it("a clean apply still leaves the archive behind; a host provider refuses recoveryTransport (configuration)", async () => {
      const repository = scratchRepository();
      const transport = fsTransport({ directory: mkdtempSync(join(tmpdir(), "outpost-recovery-fs-")) });
      const result = await dispatch({
        agent: agentWith({ FILE: "clean.txt" }),
        brief: "x",
        repository,
        sandboxProvider: provider(),
        recoveryTransport: transport,
      });
      expect(gitIn(repository, "show", "main:clean.txt")).toContain("script agent");
      expect(await transport.read(`recovery/${result.dispatchId}/backup.tar`)).toBeDefined();
      const refused = await dispatch({
        agent: agentWith({}),
        brief: "x",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        recoveryTransport: transport,
      }).then(
        () => undefined,
        (caught: unknown) => caught as { code: string },
      );
      expect(refused?.code).toBe("configuration");
    }, 120_000);
  },
);
