// A process that runs one dispatch and prints each observation as a JSON line: stands for an
// `outpost run` (or a program using the library) that gets killed with SIGKILL mid-turn.
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { dockerProvider } from "@outpost/provider-docker";
import { daytonaProvider } from "@outpost/provider-daytona";
import { vercelProvider } from "@outpost/provider-vercel";
import { DOCKER_TEST_IMAGE, scriptAgent } from "../../src/index.js";

const [repository, agentDirectory, providerName] = process.argv.slice(2) as [string, string, string];
const docker = providerName === "docker" || providerName === "docker-isolated";
// The cloud providers take their credentials (and the API double's address) from the environment.
const provider = docker
  ? dockerProvider({
      image: DOCKER_TEST_IMAGE,
      ...(providerName === "docker-isolated" ? { mode: "isolated" as const } : {}),
      network: "none",
      user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
      volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
    })
  : providerName === "vercel"
    ? vercelProvider()
    : providerName === "daytona"
      ? daytonaProvider()
      : localProvider({ home: "private" });
const agent = scriptAgent({
  directory: agentDirectory,
  // OUTPOST_RUNNER_SHELL: a shell script the agent runs before it commits (e.g. to leave a file uncommitted).
  behaviour: { HANG: "busy", FILE: "crash.txt", ...(process.env.OUTPOST_RUNNER_SHELL ? { SHELL: process.env.OUTPOST_RUNNER_SHELL } : {}) },
  ...(docker ? { executable: "node" } : {}),
});
// OUTPOST_RUNNER_HANG=workspaceReady|sandboxReady: the dispatch hangs in that hook instead (killed in that phase).
const hang = process.env.OUTPOST_RUNNER_HANG;
await dispatch({
  agent,
  brief: "work until killed",
  repository,
  sandboxProvider: provider,
  ...(hang === "workspaceReady" || hang === "sandboxReady" ? { hooks: { [hang]: ["sleep 600"] } } : {}),
  // OUTPOST_RUNNER_QUOTA=1: a storage quota, so the dispatch takes the storage lock before it starts.
  ...(process.env.OUTPOST_RUNNER_QUOTA ? { storageQuota: { maxBytes: 1 << 30 } } : {}),
  branch: { mode: "integrate" },
  until: ["never"],
  observe: (observation) =>
    process.stdout.write(`${JSON.stringify({ dispatchId: observation.dispatchId, type: observation.event.type })}\n`),
});
