import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Transport } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { fsTransport } from "@outpost/transport-fs";
import { s3Transport } from "@outpost/transport-s3";
import { archivedStore, sessionBundleStore, transcriptStore } from "../src/index.js";
import { demoProfile } from "./demo-profile.js";
import { demoTranscript, transcriptLine } from "./demo-transcript.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";
import { type MotoServer, s3Gate } from "@outpost/testkit/gates";
import { s3Client } from "./s3-client.js";

const ID = "9b3c1d2e-0000-4000-8000-00000000abcd";
const gated = await s3Gate();

function archiveSuite(name: string, transportFor: () => Promise<Transport>) {
  describe(`archivedStore through ${name}`, () => {
    let source: TestSandbox;
    let target: TestSandbox;
    let transport: Transport;
    beforeEach(async () => {
      source = await localSandbox("repo");
      target = await localSandbox("project");
      transport = await transportFor();
      const session = join(source.lease.home, ".demo", "sessions", ID);
      await mkdir(session, { recursive: true });
      await writeFile(join(session, "state.json"), JSON.stringify({ version: 2, cwd: source.lease.root }));
      await writeFile(join(session, "log.jsonl"), `${JSON.stringify({ path: `${source.lease.root}/a.txt` })}\n`);
      const transcripts = join(source.lease.home, ".demo-transcript", "sessions", "repo");
      await mkdir(transcripts, { recursive: true });
      await writeFile(join(transcripts, `${ID}.jsonl`), transcriptLine(1, source.lease.root, source.lease.home));
    });
    afterEach(async () => {
      await source.dispose();
      await target.dispose();
    });

    it("moves a bundle captured in one place to another host home and sandbox", async () => {
      const here = archivedStore(sessionBundleStore(demoProfile), transport, { namespace: "team/repo" });
      expect(here.name).toBe("transport:team/repo:demo");
      const captured = await here.capture(ID, source.context());
      expect(captured.reference?.key).toBe(`team/repo/demo/${ID}`);

      // Another machine: a fresh store instance and a different host home.
      const there = archivedStore(sessionBundleStore(demoProfile), transport, { namespace: "team/repo" });
      const elsewhere = join(target.base, "other-host-home");
      const located = await there.locate(ID, target.workspace, elsewhere);
      expect(located.reference).toEqual(captured.reference);
      expect(located.file.startsWith(elsewhere)).toBe(true);
      await there.restore(located, target.context(elsewhere));
      const state = JSON.parse(await readFile(join(target.lease.home, ".demo", "sessions", ID, "state.json"), "utf8")) as { cwd: string };
      expect(state.cwd).toBe(target.lease.root);
    });

    it("moves a transcript with its origin, and restores a record whose host copy is gone", async () => {
      const here = archivedStore(transcriptStore(demoTranscript), transport, { namespace: "n" });
      const captured = await here.capture(ID, source.context());
      await rm(join(source.workspace, ".outpost"), { recursive: true });
      await here.restore(captured, target.context());
      const restored = await readFile(join(target.lease.home, ".demo-transcript", "sessions", "project", `${ID}.jsonl`), "utf8");
      expect(restored).toBe(
        transcriptLine(1, target.lease.root, target.lease.home).replace(`${target.lease.root}ository`, `${source.lease.root}ository`),
      );
    });

    // Retried once: seen failing once under a load average of 20 with the S3 transport, not reproduced alone.
    it("never lets two racing captures clobber each other", { retry: 1 }, async () => {
      const base = archivedStore(sessionBundleStore(demoProfile), transport, { namespace: "race" });
      await base.capture(ID, source.context());
      // Two continuations of the same revision, on two machines.
      const first = archivedStore(sessionBundleStore(demoProfile), transport, { namespace: "race" });
      const second = archivedStore(sessionBundleStore(demoProfile), transport, { namespace: "race" });
      await first.restore(await first.locate(ID, target.workspace, join(target.base, "h1")), target.context(join(target.base, "h1")));
      await second.restore(await second.locate(ID, target.workspace, join(target.base, "h2")), target.context(join(target.base, "h2")));
      const won = await first.capture(ID, target.context(join(target.base, "h1")));
      const lost = await second.capture(ID, target.context(join(target.base, "h2"))).catch((caught: unknown) => caught);
      expect(isOutpostError(lost, "conflict"), String(lost)).toBe(true);
      expect((lost as Error).message).toMatch(/archived .* first/);
      const latest = await archivedStore(sessionBundleStore(demoProfile), transport, { namespace: "race" }).locate(
        ID,
        target.workspace,
        join(target.base, "h3"),
      );
      expect(latest.reference).toEqual(won.reference);

      // Two first captures at once: create-only lets exactly one through.
      const other = "77777777-0000-4000-8000-000000000001";
      await mkdir(join(source.lease.home, ".demo", "sessions", other), { recursive: true });
      await writeFile(join(source.lease.home, ".demo", "sessions", other, "state.json"), JSON.stringify({ version: 2 }));
      await writeFile(join(source.lease.home, ".demo", "sessions", other, "log.jsonl"), "{}\n");
      const results = await Promise.allSettled(
        [1, 2].map((index) =>
          archivedStore(sessionBundleStore(demoProfile), transport, { namespace: "race" }).capture(
            other,
            source.context(join(source.base, `c${index}`)),
          ),
        ),
      );
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      const rejected = results.find((result) => result.status === "rejected") as PromiseRejectedResult;
      expect(isOutpostError(rejected.reason, "conflict"), String(rejected.reason)).toBe(true);
    });

    it("refuses a missing or corrupt archived conversation", async () => {
      const store = archivedStore(sessionBundleStore(demoProfile), transport, { namespace: "bad" });
      const missing = await store.locate(ID, target.workspace).catch((caught: unknown) => caught);
      expect(isOutpostError(missing, "session")).toBe(true);
      await transport.write(`bad/demo/${ID}`, new TextEncoder().encode("{ not a bundle"), { ifRevision: null });
      const corrupt = await store.locate(ID, target.workspace).catch((caught: unknown) => caught);
      expect(isOutpostError(corrupt, "session")).toBe(true);
      const transcripts = archivedStore(transcriptStore(demoTranscript), transport, { namespace: "bad" });
      await transport.write(
        `bad/demo-transcript/${ID}`,
        new TextEncoder().encode(`outpost-pack 1\n${JSON.stringify({ files: [{ path: "../../escape", size: 1, mode: 420 }] })}\nx`),
        { ifRevision: null },
      );
      const escaping = await transcripts.locate(ID, target.workspace).catch((caught: unknown) => caught);
      expect(isOutpostError(escaping), String(escaping)).toBe(true);
    });
  });
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "outpost-archive-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await gated.server?.stop();
});

let count = 0;
archiveSuite("the filesystem transport", async () => fsTransport({ directory: join(scratch, `fs-${(count += 1)}`) }));

if (gated.server) {
  const server: MotoServer = gated.server;
  archiveSuite("the S3 transport (moto_server on loopback)", async () => {
    const bucket = `conversations-${(count += 1)}`;
    await server.createBucket(bucket);
    return s3Transport({ client: s3Client(server), bucket });
  });
} else {
  describe("archivedStore through the S3 transport", () => {
    it.skip(`unavailable: ${gated.unavailable?.reason ?? "no S3 server"}`, () => undefined);
  });
}
