// Speed of the local provider against the floor of doing the same by hand in the same run:
// a command round trip against a bare spawn, an upload against `cp -a`. Prints ratios; asserts nothing.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localProvider } from "@outpost/provider-local";

const ROUNDS = 40;
const FILES = 400;

function spawnAndWait(executable: string, parameters: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, parameters, { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolve());
  });
}

async function timed(rounds: number, body: (round: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  for (let round = 0; round < rounds; round++) await body(round);
  return (performance.now() - started) / rounds;
}

function report(what: string, floorMs: number, measuredMs: number): void {
  console.log(
    `${what.padEnd(34)} floor ${floorMs.toFixed(2).padStart(7)} ms   local ${measuredMs.toFixed(2).padStart(7)} ms   ratio ${(measuredMs / floorMs).toFixed(2)}x`,
  );
}

const scratch = await mkdtemp(join(tmpdir(), "outpost-local-bench-"));
try {
  const workspace = join(scratch, "workspace");
  const tree = join(scratch, "tree");
  await mkdir(workspace);
  for (let index = 0; index < FILES; index++) {
    await mkdir(join(tree, `d${index % 20}`), { recursive: true });
    await writeFile(join(tree, `d${index % 20}`, `f${index}.txt`), `file ${index}\n`.repeat(50));
  }
  const lease = await localProvider({ home: "private" }).acquire({
    repository: workspace,
    directory: workspace,
    gitDirectories: [],
    variables: {},
  });
  try {
    await spawnAndWait("true", []);
    await lease.invoke({ executable: "true" });
    report(
      "command round trip (true)",
      await timed(ROUNDS, () => spawnAndWait("true", [])),
      await timed(ROUNDS, async () => void (await lease.invoke({ executable: "true" }))),
    );
    const floor = await timed(5, (round) => spawnAndWait("cp", ["-a", `${tree}/.`, join(workspace, `raw-${round}`)]));
    const measured = await timed(5, (round) => lease.upload(tree, `upload-${round}`));
    report(`upload of ${FILES} files (cp -a floor)`, floor, measured);
    const manifest = await timed(5, async () => void (await lease.fileTransfers!.manifest("upload-0", ["."])));
    const hashing = await timed(5, () =>
      spawnAndWait("sh", ["-c", `find ${JSON.stringify(tree)} -type f -exec sha256sum {} + > /dev/null`]),
    );
    report(`manifest of ${FILES} files (sha256sum)`, hashing, manifest);
  } finally {
    await lease.release();
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
