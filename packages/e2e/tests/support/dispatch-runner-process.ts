import { spawn, type ChildProcessByStdio } from "node:child_process";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PACKAGES } from "./cli-process.js";

const tsxLoader = pathToFileURL(join(PACKAGES, "../node_modules/tsx/dist/loader.mjs")).href;
const runnerScript = fileURLToPath(new URL("./dispatch-runner.ts", import.meta.url));

/** Starts dispatch-runner.ts (one dispatch of a busy script agent, observations as JSON lines) on `provider`. */
export function startDispatchRunner(
  repository: string,
  agentDirectory: string,
  provider: string,
  environment?: NodeJS.ProcessEnv,
): ChildProcessByStdio<null, Readable, null> {
  return spawn(
    process.execPath,
    ["--conditions=outpost-source", "--import", tsxLoader, runnerScript, repository, agentDirectory, provider],
    {
      stdio: ["ignore", "pipe", "inherit"],
      ...(environment ? { env: environment } : {}),
    },
  );
}

/** The dispatch id of the runner's first `text` observation: its agent is at work. */
export function firstTextDispatchId(runner: ChildProcessByStdio<null, Readable, null>): Promise<string> {
  let output = "";
  return new Promise<string>((done) =>
    runner.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const text = output
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { dispatchId: string; type: string })
        .find((entry) => entry.type === "text");
      if (text) done(text.dispatchId);
    }),
  );
}
