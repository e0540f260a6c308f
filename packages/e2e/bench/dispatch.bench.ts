// Speed of dispatch() against shell floors doing the same work, measured in the same run, with the phase
// medians (`timing:` diagnostics) beside each ratio so a regression points at its phase.
// Run: npx tsx packages/e2e/bench/dispatch.bench.ts   (or npm run bench -w @outpost/e2e)
import "./private-tmpdir.js";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dispatch, hardenedGit } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE, dockerGate, scratchRepository, scriptAgent } from "../src/index.js";
import { transcriptStore } from "@outpost/conversations";
import { createAgent as shellAgent, SHELL_AGENT_LINE } from "./shell-agent.mjs";

/** The script agent's sessions (`~/.script-agent/sessions/<id>.jsonl`) as a CLI agent's transcript store. */
const scriptAgentTranscripts = transcriptStore({
  format: "script-agent-transcript",
  root: { directory: ".script-agent" },
  sessions: "sessions",
  transcriptPattern: (id) => `^${id.replace(/[^A-Za-z0-9-]/g, "")}\\.jsonl$`,
  destination: ({ id }) => `${id}.jsonl`,
});

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
// BENCH_ONLY=docker or local runs one provider's scenarios.
const ONLY = process.env.BENCH_ONLY;
const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-bench-agent-"));
process.on("exit", () => rmSync(agentDirectory, { recursive: true, force: true }));
// Writes the agent script the floors run too.
scriptAgent({ directory: agentDirectory });
const script = join(agentDirectory, "script-agent.mjs");
const IDENTITY =
  "GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@outpost.invalid GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@outpost.invalid";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(run: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** The floor: what a careful shell script does for the same task. */
function floorScript(repository: string, round: number, runAgent: (worktree: string) => string): string {
  const worktree = join(repository, ".floor", `w${round}`);
  return [
    "set -e",
    `cd '${repository}'`,
    `git worktree add --quiet -b floor/${round} '${worktree}' main`,
    `(cd '${worktree}' && export ${IDENTITY} SCRIPT_AGENT_FILE=floor-${round}.txt SHELL_AGENT_FILE=floor-${round}.txt HOME='${agentDirectory}' && ${runAgent(worktree)} >/dev/null)`,
    `${IDENTITY.split(" ")
      .map((pair) => `export ${pair}`)
      .join("; ")}; git merge --quiet --no-edit floor/${round}`,
    `git worktree remove '${worktree}'`,
    `git branch --quiet -d floor/${round}`,
  ].join("\n");
}

/** Phase durations of one dispatch, from its `timing: <phase> <ms> ms` diagnostics. */
type Phases = Map<string, number[]>;

function phaseRecorder(phases: Phases): (message: string) => void {
  return (message) => {
    const match = /^timing: (.+) (\d+) ms$/.exec(message);
    if (match) phases.set(match[1]!, [...(phases.get(match[1]!) ?? []), Number(match[2])]);
  };
}

async function compare(
  name: string,
  goal: number,
  floor: (repository: string, round: number) => void,
  outpost: (repository: string, round: number, diagnostic: (message: string) => void) => Promise<void>,
  measured: { readonly subject: string; readonly goal: string } = { subject: "outpost", goal: "goal" },
): Promise<void> {
  const repository = scratchRepository("outpost-bench-");
  const floors: number[] = [];
  const outposts: number[] = [];
  const phases: Phases = new Map();
  try {
    execFileSync("sh", ["-c", `printf '.floor/\\n' > '${repository}/.git/info/exclude'`]);
    // One warm-up each, then alternate so both see the same machine load.
    floor(repository, 0);
    await outpost(repository, 0, () => undefined);
    for (let round = 1; round <= ROUNDS; round += 1) {
      floors.push(await timed(() => floor(repository, round)));
      outposts.push(await timed(() => outpost(repository, round, phaseRecorder(phases))));
    }
  } finally {
    rmSync(repository, { recursive: true, force: true });
  }
  const ratio = median(outposts) / median(floors);
  // The best run of each shows the intrinsic cost when the shared machine is busy.
  const best = Math.min(...outposts) / Math.min(...floors);
  console.log(
    `${name.padEnd(40)} median: floor ${median(floors).toFixed(0).padStart(5)} ms, ${measured.subject} ${median(outposts).toFixed(0).padStart(5)} ms, ` +
      `ratio ${ratio.toFixed(2)}×   best: ${best.toFixed(2)}×   (${measured.goal} ≤ ${goal.toFixed(2)}×)`,
  );
  const phaseText = [...phases].map(([phase, values]) => `${phase} ${median(values)}`).join(", ");
  if (phaseText !== "") console.log(`${"".padEnd(40)} phase medians (ms): ${phaseText}`);
}

/**
 * Below what no dispatch can go, whatever its bookkeeping: the floor's own steps plus the list of the agent's
 * commits (a dispatch returns them), each git call hardened (hardened-git.ts), every process spawned from
 * Node as an engine written in Node must: six processes, as many as dispatch() spawns.
 */
async function lowerBound(repository: string, round: number): Promise<void> {
  const worktree = join(repository, ".floor", `lower${round}`);
  const branch = `lower/${round}`;
  const identity = Object.fromEntries(IDENTITY.split(" ").map((pair) => pair.split("=") as [string, string]));
  const git = async (directory: string, args: string[]) => {
    const result = await hardenedGit(directory, args, { variables: identity });
    if (result.status !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr}`);
  };
  await git(repository, ["worktree", "add", "--quiet", "-b", branch, worktree, "main"]);
  await new Promise<void>((resolve, reject) =>
    spawn("sh", ["-c", SHELL_AGENT_LINE], {
      cwd: worktree,
      env: { ...process.env, ...identity, SHELL_AGENT_FILE: `lower-${round}.txt` },
      stdio: "ignore",
    }).on("close", (status) => (status === 0 ? resolve() : reject(new Error(`the agent exited with ${status}`)))),
  );
  await git(worktree, ["rev-list", "--reverse", "main..HEAD"]);
  await git(repository, ["merge", "--quiet", "--no-edit", branch]);
  await git(repository, ["worktree", "remove", worktree]);
  await git(repository, ["branch", "--quiet", "-D", branch]);
}

const local = localProvider({ home: "private" });
if (ONLY !== "docker")
  await compare(
    "local, dispatch() in-process, script agent",
    1.3,
    (repository, round) => execFileSync("sh", ["-c", floorScript(repository, round, () => `'${process.execPath}' '${script}' brief`)]),
    async (repository, round, diagnostic) => {
      const agent = scriptAgent({ directory: agentDirectory, behaviour: { FILE: `outpost-${round}.txt` } });
      const result = await dispatch({
        agent,
        brief: "brief",
        repository,
        sandboxProvider: local,
        branch: { mode: "integrate" },
        diagnostic,
      });
      if (result.commits.length !== 1) throw new Error("the agent's commit is missing");
    },
  );
if (ONLY !== "docker")
  await compare(
    "local, dispatch() in-process, shell agent",
    1.2,
    (repository, round) => execFileSync("sh", ["-c", floorScript(repository, round, () => SHELL_AGENT_LINE)]),
    async (repository, round, diagnostic) => {
      process.env.SHELL_AGENT_FILE = `outpost-${round}.txt`;
      const result = await dispatch({
        agent: shellAgent(),
        brief: "brief",
        repository,
        sandboxProvider: local,
        branch: { mode: "integrate" },
        diagnostic,
      });
      if (result.commits.length !== 1) throw new Error("the agent's commit is missing");
    },
  );

if (ONLY !== "docker")
  await compare(
    "  lower bound for any dispatch",
    1.2,
    (repository, round) => execFileSync("sh", ["-c", floorScript(repository, round, () => SHELL_AGENT_LINE)]),
    (repository, round) => lowerBound(repository, round),
    { subject: "lower bound", goal: "the shell agent's goal" },
  );

const gate = dockerGate();
if (ONLY === "local") {
  // Docker scenarios skipped on request.
} else if (gate.unavailable) {
  console.log(`docker                                   skipped: ${gate.unavailable.reason}`);
} else {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const docker = dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "none",
    user: { uid, gid },
    volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
  });
  const dockerFloor = (repository: string, round: number) =>
    execFileSync("sh", [
      "-c",
      floorScript(
        repository,
        round,
        (worktree) =>
          `docker run --rm --network none -u ${uid}:${gid} -e HOME=/tmp -e SCRIPT_AGENT_FILE -e GIT_AUTHOR_NAME -e GIT_AUTHOR_EMAIL -e GIT_COMMITTER_NAME -e GIT_COMMITTER_EMAIL ` +
          `-v '${worktree}:/work' -v '${repository}/.git:${repository}/.git' -v '${agentDirectory}:${agentDirectory}:ro' -w /work ${DOCKER_TEST_IMAGE} node '${script}' brief`,
      ),
    ]);
  // Mounted worktree; the agent's home file goes in and its conversation is captured, as in a real run: through
  // a transcript store's sandbox script, as every CLI agent's store does (its script starts during the turn),
  // through the testkit store's plain download, and not at all.
  for (const capture of ["transcript store", "download", "off"] as const) {
    await compare(
      `docker mounted, capture ${capture === "off" ? "off" : `on (${capture})`}`,
      capture === "off" ? 1.1 : 1.15,
      dockerFloor,
      async (repository, round, diagnostic) => {
        const agent = scriptAgent({
          directory: agentDirectory,
          executable: "node",
          storage: capture !== "off",
          behaviour: { FILE: `outpost-${round}.txt` },
        });
        const result = await dispatch({
          agent: capture === "transcript store" ? { ...agent, storage: scriptAgentTranscripts } : agent,
          brief: "brief",
          repository,
          sandboxProvider: docker,
          branch: { mode: "integrate" },
          diagnostic,
        });
        if (result.commits.length !== 1) throw new Error("the agent's commit is missing");
        if (capture !== "off" && result.conversation === undefined) throw new Error("the conversation was not captured");
      },
    );
  }
}

// Fresh processes (`outpost run`, a script importing the library, `outpost --help`, peak RSS): fresh-process.bench.ts.
