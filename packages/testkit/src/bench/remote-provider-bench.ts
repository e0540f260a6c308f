import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileManifestEntry, SandboxLease, SandboxProvider } from "@outpost/core";

/** One file of the benchmark tree, as a raw SDK upload takes it. */
export interface BenchFile {
  readonly path: string;
  readonly content: Buffer;
}

/** The same work done by hand with the platform's SDK: the floor each ratio is measured against. */
export interface RawPlatform {
  /** Creates a sandbox, runs `true` in it and deletes it. */
  roundTrip(): Promise<void>;
  /**
   * The least any lease must do by hand for the same round trip: create, learn what a lease reports at once
   * (its home and root), run `true` as an executable (a shell would run its builtin, which a lease asked
   * for an executable may not), delete. Printed as the round trip's lower bound, so a ratio the contract
   * itself forbids is told apart from overhead.
   */
  leaseMinimum?(): Promise<void>;
  /**
   * A sandbox to upload into: `upload` sends every file (also found under the host folder `source`) to
   * `destination` the fastest way the SDK offers by hand (one bulk call, or one archive and its extraction).
   * Destinations are fresh folders under `root`, a directory of that sandbox (gone with it), as the
   * provider's uploads go to fresh folders under its lease's root.
   */
  uploader(): Promise<{
    readonly root: string;
    upload(files: readonly BenchFile[], destination: string, source: string): Promise<void>;
    dispose(): Promise<void>;
  }>;
}

export interface RemoteProviderBenchOptions {
  readonly name: string;
  readonly provider: SandboxProvider;
  readonly raw: RawPlatform;
  /** Bytes the platform (or its double) has received so far: the re-sync is compared in bytes sent. */
  readonly receivedBytes: () => number;
  readonly rounds?: number;
  /** Upload rounds (each side writes the whole tree once per round); default: `rounds`, at most 3. */
  readonly uploadRounds?: number;
  readonly files?: number;
  readonly log?: (line: string) => void;
  /**
   * The platform double's request timeline, to count the serial round trips of each side (requests a client
   * waited for one after the other): with an injected latency they, not CPU, decide the wall time.
   */
  readonly roundTrips?: { mark(): number; serial(mark: number): { readonly count: number } };
}

/** Serial round trips of one run of each side, when the double counts them. */
export interface RoundTripCounts {
  readonly provider: number;
  readonly raw: number;
  readonly minimum?: number;
}

/** Medians of each side and their ratio, and the ratio of the best rounds (what a stall of the machine spares). */
export interface BenchComparison {
  readonly floorMs: number;
  readonly providerMs: number;
  readonly ratio: number;
  readonly bestRatio: number;
}

export interface RemoteProviderBenchResult {
  readonly roundTrip: BenchComparison;
  /** `leaseMinimum` against the same floor, when the platform gave one. */
  readonly leaseMinimum?: { readonly floorMs: number; readonly minimumMs: number; readonly ratio: number };
  readonly upload: BenchComparison;
  readonly serialRoundTrips?: RoundTripCounts;
  readonly resync: { readonly fullBytes: number; readonly resyncBytes: number; readonly share: number; readonly ms: number };
}

const middle = (times: number[]): number => [...times].sort((left, right) => left - right)[Math.floor(times.length / 2)]!;

/** Alternates floor and provider rounds, so load from other processes hits both alike; medians and bests of each. */
async function compare(
  rounds: number,
  floor: (round: number) => Promise<void>,
  provider: (round: number) => Promise<void>,
): Promise<BenchComparison> {
  const floorTimes: number[] = [];
  const providerTimes: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    let started = performance.now();
    await floor(round);
    floorTimes.push(performance.now() - started);
    started = performance.now();
    await provider(round);
    providerTimes.push(performance.now() - started);
  }
  const [floorMs, providerMs] = [middle(floorTimes), middle(providerTimes)];
  return { floorMs, providerMs, ratio: providerMs / floorMs, bestRatio: Math.min(...providerTimes) / Math.min(...floorTimes) };
}

/** A tree of `count` small files in 100 folders, on the host and as raw SDK upload entries. */
async function benchTree(count: number): Promise<{ directory: string; files: BenchFile[] }> {
  const directory = await mkdtemp(join(tmpdir(), "outpost-remote-bench-"));
  const files: BenchFile[] = [];
  for (let index = 0; index < count; index += 1) {
    const path = `folder-${index % 100}/file-${index}.txt`;
    const content = Buffer.from(`file ${index}: ${"x".repeat(64 + (index % 64))}\n`);
    files.push({ path, content });
  }
  for (let folder = 0; folder < Math.min(100, count); folder += 1) await mkdir(join(directory, `folder-${folder}`));
  await Promise.all(files.map((file) => writeFile(join(directory, file.path), file.content)));
  return { directory, files };
}

async function hostManifest(directory: string, files: readonly BenchFile[]): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  for (const file of files)
    digests.set(
      file.path,
      createHash("sha256")
        .update(await readFile(join(directory, file.path)))
        .digest("hex"),
    );
  return digests;
}

/**
 * Measures a remote provider against its platform's SDK used by hand, in the same run: acquire + one command
 * + release against create + run + delete; uploading a tree through the lease against one bulk SDK upload of
 * the same bytes; and a re-sync after one file changed (manifest, then only the changed file) in bytes sent,
 * as a share of the full upload. Prints each ratio next to its goal; asserts nothing.
 */
export async function runRemoteProviderBench(options: RemoteProviderBenchOptions): Promise<RemoteProviderBenchResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const rounds = options.rounds ?? 5;
  const uploadRounds = Math.max(1, options.uploadRounds ?? Math.min(rounds, 3));
  const empty = await mkdtemp(join(tmpdir(), "outpost-remote-bench-empty-"));
  const tree = await benchTree(options.files ?? 10_000);
  const context = { repository: empty, directory: empty, gitDirectories: [], variables: {} };
  let lease: SandboxLease | undefined;
  const uploader = await options.raw.uploader();
  try {
    const leaseRoundTrip = async () => {
      const each = await options.provider.acquire(context);
      const result = await each.invoke({ executable: "true" });
      await each.release();
      if (result.status !== 0) throw new Error(`true exited ${result.status} in ${options.name}`);
    };
    const counted = async (run: () => Promise<void>) => {
      const mark = options.roundTrips!.mark();
      await run();
      return options.roundTrips!.serial(mark).count;
    };
    const serialRoundTrips: RoundTripCounts | undefined = options.roundTrips && {
      provider: await counted(leaseRoundTrip),
      raw: await counted(() => options.raw.roundTrip()),
      ...(options.raw.leaseMinimum ? { minimum: await counted(options.raw.leaseMinimum) } : {}),
    };
    // Against the least the same work needs when the platform gives it, else against the plain round trip.
    const roundTrip = await compare(rounds, () => (options.raw.leaseMinimum ?? options.raw.roundTrip)(), leaseRoundTrip);
    const minimum = options.raw.leaseMinimum;
    const leaseMinimum =
      minimum &&
      (await compare(
        rounds,
        () => options.raw.roundTrip(),
        () => minimum(),
      ).then(({ floorMs, providerMs, ratio }) => ({ floorMs, minimumMs: providerMs, ratio })));
    lease = await options.provider.acquire(context);
    const open = lease;
    const upload = await compare(
      uploadRounds,
      (round) => uploader.upload(tree.files, `${uploader.root}/raw-${round}`, tree.directory),
      (round) => open.upload(tree.directory, `${open.root}/tree-${round}`),
    );
    // Full upload in bytes, then one file changes and only it travels.
    const transfers = open.fileTransfers;
    if (transfers?.uploadBatch === undefined) throw new Error(`${options.name} has no fileTransfers.uploadBatch`);
    const destination = `${open.root}/synced`;
    let before = options.receivedBytes();
    await open.upload(tree.directory, destination);
    const fullBytes = options.receivedBytes() - before;
    const changed = tree.files[Math.floor(tree.files.length / 2)]!;
    await writeFile(join(tree.directory, changed.path), `${changed.content.toString()}changed\n`);
    before = options.receivedBytes();
    const started = performance.now();
    const [local, remote] = await Promise.all([hostManifest(tree.directory, tree.files), transfers.manifest(destination, ["."])]);
    const remoteDigests = new Map(remote.map((entry) => [entry.path, entry.sha256]));
    const stale: FileManifestEntry[] = [];
    for (const [path, sha256] of local) {
      if (remoteDigests.get(path) === sha256) continue;
      const info = await stat(join(tree.directory, path));
      stale.push({ path, kind: "file", mode: info.mode & 0o777, size: info.size, sha256 });
    }
    await transfers.uploadBatch(tree.directory, stale, destination);
    const ms = performance.now() - started;
    const resyncBytes = options.receivedBytes() - before;
    if (stale.length !== 1) throw new Error(`the re-sync found ${stale.length} changed files, not 1`);
    const result = {
      roundTrip,
      ...(leaseMinimum ? { leaseMinimum } : {}),
      upload,
      ...(serialRoundTrips ? { serialRoundTrips } : {}),
      resync: { fullBytes, resyncBytes, share: resyncBytes / fullBytes, ms },
    };
    const row = (what: string, measured: BenchComparison, floor: string, goal: string) =>
      log(
        `${what.padEnd(34)} ${floor.padEnd(30)} ${measured.floorMs.toFixed(1).padStart(8)} ms   ` +
          `${options.name} ${measured.providerMs.toFixed(1).padStart(8)} ms   ratio ${measured.ratio.toFixed(2)}× ` +
          `(best rounds ${measured.bestRatio.toFixed(2)}×; goal ${goal})`,
      );
    log(`${options.name}: medians of ${rounds} round(s) (uploads: ${uploadRounds}), ${tree.files.length} files`);
    const floorName = minimum ? "raw SDK, the calls a lease needs" : "raw SDK create + run + delete";
    row("acquire + one command + release", roundTrip, floorName, "≤ 1.15×");
    if (leaseMinimum)
      log(
        `${"  (raw create + run + delete)".padEnd(34)} ${"".padEnd(30)} ${leaseMinimum.floorMs.toFixed(1).padStart(8)} ms   ` +
          `the least a lease needs is ${leaseMinimum.ratio.toFixed(2)}× that`,
      );
    if (serialRoundTrips)
      log(
        `${"  serial round trips".padEnd(34)} ${options.name} ${serialRoundTrips.provider}, raw least work ${serialRoundTrips.minimum ?? "-"}, ` +
          `raw create + run + delete ${serialRoundTrips.raw}`,
      );
    row(`upload of ${tree.files.length} files`, upload, "one raw SDK bulk upload", "≤ 1.1×");
    log(
      `re-sync after one file changed: ${resyncBytes} bytes sent vs ${fullBytes} for the full upload = ` +
        `${(result.resync.share * 100).toFixed(2)}% (goal ≤ 5%), ${ms.toFixed(0)} ms (manifest both sides + one batch)`,
    );
    return result;
  } finally {
    await lease?.release().catch(() => undefined);
    await uploader.dispose().catch(() => undefined);
    await rm(empty, { recursive: true, force: true });
    await rm(tree.directory, { recursive: true, force: true });
  }
}
