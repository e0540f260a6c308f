import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { OutpostError } from "@outpost/core";
import type { ProgramIo } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { agentDescriptor } from "../agents/load-agent.js";
import { checkoutRoot } from "../config/config-file.js";
import { findPlugins } from "../plugins/find-plugins.js";
import { configText, dockerfileText, envExampleText, OUTPOST_GITIGNORE, ROOT_GITIGNORE_LINE, type PinnedCli } from "./init-files.js";

export interface InitFlags {
  readonly repository?: string;
  readonly agent?: string;
  readonly provider?: string;
  readonly force?: boolean;
}

type Outcome = "wrote" | "unchanged" | "kept" | "replaced" | "added";

/**
 * `outpost init`: `.outpost/config.json` (defaults of `outpost run`), `.outpost/.env.example`,
 * `.outpost/Dockerfile` and `.gitignore` lines. Idempotent: a file already there is left alone (said so)
 * unless `--force`; the `.gitignore` line is added once.
 */
export async function initCommand(flags: InitFlags, io: ProgramIo): Promise<number> {
  try {
    const root = checkoutRoot(flags.repository ?? process.cwd());
    if (root === undefined)
      throw new OutpostError(
        "configuration",
        "outpost init runs inside a git checkout: cd into one (or git init), or pass --repository <path>.",
      );
    const agent = flags.agent ?? findPlugins("agent")[0]?.name;
    const descriptor = agent === undefined ? undefined : await agentDescriptor(agent);
    const clis: PinnedCli[] = descriptor?.cli ? [descriptor.cli] : [];
    const keys = descriptor?.variables.apiKey ? [descriptor.variables.apiKey] : [];
    const directory = join(root, ".outpost");
    if (existsSync(directory) && !lstatSync(directory).isDirectory())
      throw new OutpostError("configuration", `${directory} is not a folder. Move it away, then run outpost init again.`);
    mkdirSync(directory, { recursive: true });
    const config = {
      ...(agent ? { agent } : {}),
      ...(flags.provider ? { provider: flags.provider } : {}),
      branch: "integrate",
      image: "outpost-agents:latest",
      "deadline-ms": 3_600_000,
    };
    const results: [string, Outcome][] = [
      [join(directory, "config.json"), write(join(directory, "config.json"), configText(config), flags.force)],
      [join(directory, ".env.example"), write(join(directory, ".env.example"), envExampleText(keys), flags.force)],
      [join(directory, "Dockerfile"), write(join(directory, "Dockerfile"), dockerfileText(clis), flags.force)],
      [join(directory, ".gitignore"), write(join(directory, ".gitignore"), OUTPOST_GITIGNORE, flags.force, "*\n")],
      [join(root, ".gitignore"), addLine(join(root, ".gitignore"), ROOT_GITIGNORE_LINE)],
    ];
    for (const [path, outcome] of results) io.stdout.write(`${outcome.padEnd(9)} ${relative(process.cwd(), path) || path}\n`);
    if (results.some(([, outcome]) => outcome === "kept"))
      io.stdout.write("Files marked kept differ from what init writes; pass --force to overwrite them.\n");
    io.stdout.write("Next: copy .outpost/.env.example to .outpost/.env, then `outpost run --help` shows these defaults.\n");
    return EXIT_CODES.success;
  } catch (error) {
    if (!OutpostError.isInstance(error)) throw error;
    io.stderr.write(`outpost: ${error.code}: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
}

/** Writes `text` unless the file holds it already; another content is kept unless forced (or is `replaceable`). */
function write(path: string, text: string, force: boolean | undefined, replaceable?: string): Outcome {
  if (!existsSync(path)) {
    writeFileSync(path, text, { flag: "wx" });
    return "wrote";
  }
  const current = readFileSync(path, "utf8");
  if (current === text) return "unchanged";
  if (!force && current !== replaceable) return "kept";
  writeFileSync(path, text);
  return "replaced";
}

function addLine(path: string, line: string): Outcome {
  const current = existsSync(path) ? readFileSync(path, "utf8") : "";
  if (current.split(/\r?\n/).some((entry) => entry.trim() === line)) return "unchanged";
  writeFileSync(path, `${current}${current === "" || current.endsWith("\n") ? "" : "\n"}${line}\n`);
  return "added";
}
