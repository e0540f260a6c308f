// Remote repository sync on Docker `isolated`, against raw floors measured in the same run (one round each:
// the machine is shared). Goals (issue 12): seed of a 10,000-file repository ≤ 1.3× `git bundle create` + a tar
// stream of the same bytes into the container; a second dispatch after a one-file change sends ≤ 5% of the
// first's bytes; sync back of 1,000 uncommitted files ≤ 1.5× a raw `tar -c | tar -x` out of the container; a
// trivial agent on isolated, integrate, ≤ 1.5× a shell floor (bundle in, run, bundle out, merge).
// Run: npm run bench:remote -w @outpost/e2e
import "./private-tmpdir.js";
import { execFileSync, execSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dispatch } from "@outpost/dispatch";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { isolatedDocker } from "../tests/support/isolated-docker.js";

const gate = dockerGate();
if (gate.unavailable) {
  console.log(`skipped: ${gate.unavailable.reason}`);
  process.exit(0);
}
const { agentDirectory, provider, agentWith } = isolatedDocker();
const volume = `outpost-bench-root-${randomUUID().slice(0, 8)}`;
process.on("exit", () => {
  rmSync(agentDirectory, { recursive: true, force: true });
  execFileSync("docker", ["volume", "rm", "--force", volume], { stdio: "ignore" });
});

/** Runs one dispatch and returns its `timing:` phases (ms) and the bytes the seed reported. */
async function run(options: Partial<Parameters<typeof dispatch>[0]> & Pick<Parameters<typeof dispatch>[0], "agent" | "repository">) {
  const phases = new Map<string, number>();
  let seeded = 0;
  await dispatch({
    brief: "bench",
    sandboxProvider: provider(),
    ...options,
    diagnostic: (message) => {
      const timing = /^timing: (\w+) (\d+) ms$/.exec(message);
      if (timing) phases.set(timing[1]!, Number(timing[2]));
      const seed = /^seed: (\d+) bytes/.exec(message);
      if (seed) seeded = Number(seed[1]);
    },
  });
  return { phases, seeded };
}

function timed(action: () => void): number {
  const started = performance.now();
  action();
  return performance.now() - started;
}

// A repository of 10,000 small files.
const repository = scratchRepository();
for (let directory = 0; directory < 100; directory++) {
  mkdirSync(join(repository, "src", `d${directory}`), { recursive: true });
  for (let file = 0; file < 100; file++)
    writeFileSync(join(repository, "src", `d${directory}`, `f${file}.txt`), `file ${directory}/${file}\n${"x".repeat(200)}\n`);
}
gitIn(repository, "add", "-A");
gitIn(repository, "commit", "--quiet", "-m", "10,000 files");

// 1. Seed into a persistent sandbox root, then a second dispatch after a one-file host change.
const first = await run({ agent: agentWith({}), repository, sandboxProvider: provider(volume) });
writeFileSync(join(repository, "src", "d0", "f0.txt"), "changed\n");
gitIn(repository, "commit", "--quiet", "-am", "one file");
const second = await run({ agent: agentWith({}), repository, sandboxProvider: provider(volume) });

// Floor: bundle the same branch and stream it into a fresh container's /workspace with tar, then clone from it.
const floorDirectory = mkdtempSync(join(tmpdir(), "outpost-bench-floor-"));
const container = execFileSync("docker", ["run", "-d", "--network", "none", DOCKER_TEST_IMAGE, "sleep", "600"], {
  encoding: "utf8",
}).trim();
function floors(): { seedFloor: number; backFloor: number } {
  try {
    const seedFloor = timed(() => {
      execFileSync("git", ["bundle", "create", "--quiet", join(floorDirectory, "work.bundle"), "main"], { cwd: repository });
      execSync(
        `tar -C '${floorDirectory}' -cf - work.bundle | docker exec -i ${container} sh -c 'mkdir -p /workspace && tar -C /tmp -xf - && git clone --quiet -b main /tmp/work.bundle /workspace/repo'`,
      );
    });
    // 3. Sync back floor: 1,000 files made in the container, tar -c | tar -x to the host.
    execFileSync("docker", [
      "exec",
      container,
      "sh",
      "-c",
      "mkdir -p /out && cd /out && i=0; while [ $i -lt 1000 ]; do echo file $i > f$i.txt; i=$((i+1)); done",
    ]);
    mkdirSync(join(floorDirectory, "back"));
    const backFloor = timed(() => execSync(`docker exec ${container} tar -C /out -cf - . | tar -C '${floorDirectory}/back' -xf -`));
    return { seedFloor, backFloor };
  } finally {
    execFileSync("docker", ["rm", "-f", container], { stdio: "ignore" });
    rmSync(floorDirectory, { recursive: true, force: true });
  }
}
const { seedFloor, backFloor } = floors();

// 3. Sync back of 1,000 uncommitted files through the engine (named branch: the worktree keeps them).
const small = scratchRepository();
const back = await run({
  agent: agentWith({ SHELL: "mkdir -p out && i=0; while [ $i -lt 1000 ]; do echo file $i > out/f$i.txt; i=$((i+1)); done" }),
  repository: small,
  branch: { mode: "named", name: "bench" },
});
// The same dispatch with nothing to bring back: its syncBack is the fixed cost (bundle, release) to subtract.
const empty = await run({ agent: agentWith({}), repository: scratchRepository(), branch: { mode: "named", name: "bench" } });

// 4. A trivial agent (one commit) on Docker isolated, integrate, end to end, against a shell floor doing the
// same by hand: bundle in, run, bundle out, merge.
const trivialRepository = scratchRepository();
const trivialStarted = performance.now();
await run({
  agent: agentWith({ SHELL: "echo done > done.txt && git add done.txt && git commit -qm done" }),
  repository: trivialRepository,
});
const trivialMs = performance.now() - trivialStarted;
const shellRepository = scratchRepository();
const shellFloor = timed(() => {
  const scratch = mkdtempSync(join(tmpdir(), "outpost-bench-shell-"));
  const box = execFileSync("docker", ["run", "-d", "--network", "none", DOCKER_TEST_IMAGE, "sleep", "600"], { encoding: "utf8" }).trim();
  try {
    execFileSync("git", ["bundle", "create", "--quiet", join(scratch, "in.bundle"), "main"], { cwd: shellRepository });
    const work =
      "tar -C /tmp -xf - && git clone --quiet -b main /tmp/in.bundle /workspace && cd /workspace && echo done > done.txt && " +
      "git add done.txt && git -c user.name=b -c user.email=b@b commit -qm done && git bundle create --quiet /tmp/out.bundle main";
    execSync(`tar -C '${scratch}' -cf - in.bundle | docker exec -i ${box} sh -c '${work}'`);
    execSync(`docker exec ${box} cat /tmp/out.bundle > '${scratch}/out.bundle'`);
    execFileSync("git", ["fetch", "--quiet", join(scratch, "out.bundle"), "main:refs/outpost/floor"], { cwd: shellRepository });
    execFileSync("git", ["merge", "--quiet", "--ff-only", "refs/outpost/floor"], { cwd: shellRepository });
  } finally {
    execFileSync("docker", ["rm", "-f", box], { stdio: "ignore" });
    rmSync(scratch, { recursive: true, force: true });
  }
});

const seedMs = first.phases.get("seed") ?? NaN;
const backMs = (back.phases.get("syncBack") ?? NaN) - (empty.phases.get("syncBack") ?? 0);
const rows = [
  ["seed 10,000 files (ms)", seedMs, seedFloor, seedMs / seedFloor, "≤ 1.3"],
  ["second seed bytes / first", second.seeded, first.seeded, second.seeded / first.seeded, "≤ 0.05"],
  ["sync back 1,000 files (ms)", backMs, backFloor, backMs / backFloor, "≤ 1.5"],
  ["trivial agent, integrate (ms)", trivialMs, shellFloor, trivialMs / shellFloor, "≤ 1.5"],
];
for (const [name, outpost, floor, ratio, goal] of rows)
  console.log(
    `${String(name).padEnd(28)} outpost ${Math.round(Number(outpost))}  floor ${Math.round(Number(floor))}  ratio ${Number(ratio).toFixed(3)}  goal ${goal}`,
  );
