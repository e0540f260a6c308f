import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import type { ImageAgent } from "./image-agents.js";

/** Where installed CLI releases are kept between builds: `<cache>/<agent>-<version>/` (the CI matrix layout). */
export function cliCache(): string {
  return process.env["OUTPOST_CLI_CACHE"] ?? join(process.env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "outpost", "agent-clis");
}

/** `npm install --prefix <cache>/<agent>-<version> <package>@<version>` on this host, once (a marker says it finished). */
export async function installCli(agent: ImageAgent, log: (line: string) => void): Promise<string> {
  const prefix = join(cliCache(), `${agent.name}-${agent.version}`);
  const executable = join(prefix, "node_modules", ".bin", agent.executable);
  if (existsSync(join(prefix, ".installed")) && existsSync(executable)) return prefix;
  log(`installing ${agent.npmPackage}@${agent.version} into ${prefix}`);
  await rm(prefix, { recursive: true, force: true });
  await mkdir(prefix, { recursive: true });
  // A package.json of its own keeps npm from walking up into an enclosing project.
  await writeFile(
    join(prefix, "package.json"),
    `${JSON.stringify({ name: `outpost-cli-${agent.name}-${agent.version}`, private: true })}\n`,
  );
  await run(
    "npm",
    ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", `${agent.npmPackage}@${agent.version}`],
    `npm install ${agent.npmPackage}@${agent.version}`,
  );
  if (!existsSync(executable)) {
    throw new OutpostError(
      "process",
      `${agent.npmPackage}@${agent.version} installed no \`${agent.executable}\` executable in ${prefix}. Check the package and version.`,
    );
  }
  await writeFile(join(prefix, ".installed"), "");
  return prefix;
}

/** Runs a host command to completion; a non-zero exit is a `process` error with its own error output. */
export function run(
  executable: string,
  args: readonly string[],
  what: string,
  options: { readonly cwd?: string; readonly stdin?: string } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, [...args], { cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8000)));
    child.on("error", (error) =>
      reject(
        new OutpostError("process", `Could not run ${what} (${executable}): ${error.message}. Check that it is installed and on PATH.`, {
          cause: error,
        }),
      ),
    );
    child.on("close", (status) => {
      if (status === 0) resolve(stdout);
      else
        reject(
          new OutpostError("process", `${what} exited with ${status}: ${stderr.trim().slice(-1500) || "no output"}.`, {
            details: { status },
          }),
        );
    });
    child.stdin.end(options.stdin ?? "");
  });
}
