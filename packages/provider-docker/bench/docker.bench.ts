// Speed of the Docker provider against floors measured by hand in the same run (docker CLI, raw dockerode,
// raw tar piped into docker exec). Prints medians and ratios; asserts nothing. Needs dockerd and the test
// images (tools/build-test-image.sh).
import { spawn } from "node:child_process";
import { chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { dockerProvider } from "@outpost/provider-docker";

const IMAGE = process.env.OUTPOST_BENCH_IMAGE ?? "outpost-busybox:latest";
const ROUNDS = Number(process.env.OUTPOST_BENCH_ROUNDS ?? 5);
const FILES = 10_000;
const docker = new Docker();

function run(command: string, parameters: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, parameters, { stdio: ["ignore", "ignore", "inherit"] });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${parameters.join(" ")} exited ${code}`))));
  });
}

async function median(rounds: number, body: (round: number) => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    await body(round);
    times.push(performance.now() - started);
  }
  times.sort((left, right) => left - right);
  return times[Math.floor(times.length / 2)]!;
}

/** Alternates floor and provider rounds so load from other processes hits both alike; returns both medians. */
async function compare(
  rounds: number,
  floor: (round: number) => Promise<void>,
  measured: (round: number) => Promise<void>,
): Promise<[number, number]> {
  const floorTimes: number[] = [];
  const measuredTimes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    floorTimes.push(await median(1, () => floor(round)));
    measuredTimes.push(await median(1, () => measured(round)));
  }
  const middle = (times: number[]) => times.sort((left, right) => left - right)[Math.floor(times.length / 2)]!;
  return [middle(floorTimes), middle(measuredTimes)];
}

function report(what: string, floorName: string, floorMs: number, measuredMs: number, goal: string): void {
  const ratio = measuredMs / floorMs;
  console.log(
    `${what.padEnd(40)} ${floorName.padEnd(34)} ${floorMs.toFixed(1).padStart(8)} ms   provider ${measuredMs.toFixed(1).padStart(8)} ms   ratio ${ratio.toFixed(2)}x  (goal ${goal})`,
  );
}

async function rawExec(container: Docker.Container): Promise<void> {
  const exec = await container.exec({ Cmd: ["true"], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  stream.resume();
  await new Promise((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
  });
  await exec.inspect();
}

const scratch = await mkdtemp(join(tmpdir(), "outpost-docker-bench-"));
try {
  const workspace = join(scratch, "workspace");
  const tree = join(scratch, "tree");
  await mkdir(workspace);
  await chown(workspace, 1000, 1000);
  for (let index = 0; index < FILES; index++) {
    if (index % 100 === 0) await mkdir(join(tree, `d${index / 100}`), { recursive: true });
    await writeFile(join(tree, `d${Math.floor(index / 100)}`, `f${index}.txt`), `file ${index}\n`.repeat(20));
  }
  const context = { repository: workspace, directory: workspace, gitDirectories: [], variables: {} };
  const provider = dockerProvider({ image: IMAGE, network: "none" });

  // 1. acquire + release against `docker run --rm <image> true`.
  await run("docker", ["run", "--rm", "--network", "none", IMAGE, "true"]);
  const [runFloor, lifecycle] = await compare(
    ROUNDS,
    () => run("docker", ["run", "--rm", "--network", "none", IMAGE, "true"]),
    async () => {
      const lease = await provider.acquire(context);
      await lease.release();
    },
  );
  report("acquire + release", "docker run --rm IMAGE true", runFloor, lifecycle, "<= 1.2x");

  const lease = await provider.acquire(context);
  try {
    const container = docker.getContainer((lease as unknown as { containerId: string }).containerId);
    // 2. command round trip against a raw dockerode exec.
    await rawExec(container);
    await lease.invoke({ executable: "true" });
    const [execFloor, invoke] = await compare(
      ROUNDS * 4,
      () => rawExec(container),
      async () => void (await lease.invoke({ executable: "true" })),
    );
    report("command round trip (true)", "raw dockerode exec", execFloor, invoke, "<= 1.1x");

    // 3. upload of the tree against raw `tar -c | docker exec -i tar -x`.
    const id = container.id;
    const [tarFloor, upload] = await compare(
      ROUNDS,
      (round) =>
        run("sh", ["-c", `tar -C '${tree}' -c . | docker exec -i ${id} sh -c 'mkdir -p /tmp/raw-${round} && tar -x -C /tmp/raw-${round}'`]),
      (round) => lease.upload(tree, `${lease.home}/up-${round}`),
    );
    report(`upload of ${FILES} files`, "tar -c | docker exec -i tar -x", tarFloor, upload, "<= 1.3x");

    // 3b. download of the same tree against raw `docker exec tar -c | tar -x` (host side, no checks).
    const [untarFloor, download] = await compare(
      ROUNDS,
      (round) =>
        run("sh", [
          "-c",
          `mkdir -p '${scratch}/raw-down-${round}' && docker exec ${id} tar -C ${lease.home}/up-0 -c . | tar -x -C '${scratch}/raw-down-${round}'`,
        ]),
      (round) => lease.download(`${lease.home}/up-0`, join(scratch, `down-${round}`)),
    );
    report(`download of ${FILES} files`, "docker exec tar -c | tar -x", untarFloor, download, "<= 1.3x");

    // 4. re-sync of one changed file through fileTransfers against the full upload.
    const changed = join(tree, "d7", "f742.txt");
    const resync = await median(ROUNDS, async (round) => {
      await writeFile(changed, `changed ${round}\n`);
      const [entry] = await lease.fileTransfers!.manifest(`${lease.home}/up-0`, ["d7/f742.txt"]);
      const { createHash } = await import("node:crypto");
      const { readFile } = await import("node:fs/promises");
      const bytes = await readFile(changed);
      await lease.fileTransfers!.uploadBatch!(
        tree,
        [{ ...entry!, size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") }],
        `${lease.home}/up-0`,
      );
    });
    report("re-sync of 1 changed file (manifest+batch)", "full upload of the tree", upload, resync, "<= 0.05x");
    const batchOnly = await median(ROUNDS, async (round) => {
      const bytes = Buffer.from(`again ${round}\n`);
      await writeFile(changed, bytes);
      const { createHash } = await import("node:crypto");
      await lease.fileTransfers!.uploadBatch!(
        tree,
        [{ path: "d7/f742.txt", kind: "file", mode: 0o644, size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") }],
        `${lease.home}/up-0`,
      );
    });
    report("re-sync of 1 changed file (batch only)", "full upload of the tree", upload, batchOnly, "<= 0.05x");
  } finally {
    await lease.release();
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
