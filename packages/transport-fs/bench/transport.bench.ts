// Speed of the fs transport against doing the same durable work by hand in the same run: a create-only
// write (temp file, fsync, rename, fsync directory) and a read of 1 KB objects. Prints ratios; asserts nothing.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdtemp, open, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fsTransport } from "@outpost/transport-fs";

const COUNT = Number(process.env.BENCH_COUNT ?? 1_000);
const SMALL = randomBytes(1024);

async function timed(body: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await body();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** The floor: the same durable steps with no lock, header, revision or checks. */
async function rawDurableWrite(directory: string, name: string, bytes: Uint8Array): Promise<void> {
  const temporary = join(directory, `${name}.tmp`);
  const handle = await open(temporary, "wx");
  await handle.writeFile(bytes);
  await handle.sync();
  await handle.close();
  await rename(temporary, join(directory, name));
  const folder = await open(directory, constants.O_RDONLY | constants.O_DIRECTORY);
  await folder.sync();
  await folder.close();
}

function report(label: string, rawMs: number, transportMs: number): void {
  console.log(
    `${label.padEnd(22)} raw ${rawMs.toFixed(0).padStart(6)} ms   transport ${transportMs.toFixed(0).padStart(6)} ms   ratio ${(transportMs / rawMs).toFixed(2)}×`,
  );
}

const base = await mkdtemp(join(tmpdir(), "outpost-fs-bench-"));
try {
  const rawDirectory = await mkdtemp(join(base, "raw-"));
  const transport = fsTransport({ directory: join(base, "store") });
  await transport.write("warm", SMALL, { ifRevision: null });
  const totals = { rawWrite: 0, transportWrite: 0, rawRead: 0, transportRead: 0 };
  for (let index = 0; index < COUNT; index += 1) {
    totals.rawWrite += await timed(() => rawDurableWrite(rawDirectory, `o-${index}`, SMALL));
    totals.transportWrite += await timed(async () => {
      await transport.write(`o-${index}`, SMALL, { ifRevision: null });
    });
  }
  for (let index = 0; index < COUNT; index += 1) {
    totals.rawRead += await timed(async () => {
      await readFile(join(rawDirectory, `o-${index}`));
    });
    totals.transportRead += await timed(async () => {
      await transport.read(`o-${index}`);
    });
  }
  console.log(`${COUNT} × 1 KB in ${base}`);
  report(`${COUNT} writes`, totals.rawWrite, totals.transportWrite);
  report(`${COUNT} reads`, totals.rawRead, totals.transportRead);
} finally {
  await rm(base, { recursive: true, force: true });
}
