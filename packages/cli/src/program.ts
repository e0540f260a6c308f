import { Command, InvalidArgumentError } from "./commander.js";
import { findPlugins } from "./plugins/find-plugins.js";
import { addPluginCommands } from "./plugins/plugin-commands.js";
import { addReplayCommand } from "./replay/replay-program.js";
import { shortUsageErrors } from "./short-usage.js";

export interface ProgramIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly setExitCode: (code: number) => void;
  /** Where `outpost run` reads steering lines, when it is a terminal. */
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  /** The defaults section of `outpost run --help` (from .outpost/config.json), computed only when that help is asked for. */
  readonly runHelp?: string;
}

/** Options of `outpost run`, as parsed. */
export interface RunFlags {
  /** Required unless agentModule is given. */
  readonly agent?: string;
  readonly provider?: string;
  readonly branch: string;
  readonly continue?: string;
  readonly fork?: boolean;
  readonly json?: boolean;
  readonly verbose?: boolean;
  readonly label?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly executable?: string;
  /** The agent CLI's release, when known without asking it (skips `--version` in the sandbox). */
  readonly agentVersion?: string;
  readonly passes: number;
  readonly until?: string[];
  readonly idleMs?: number;
  readonly deadlineMs?: number;
  readonly repository?: string;
  readonly conversationHome?: string;
  /** Fail the run (code session, work kept) when the conversation cannot be captured for --continue. */
  readonly requireConversation?: boolean;
  readonly inheritEnvironment?: boolean;
  readonly image?: string;
  readonly network?: string;
  readonly cpus?: number;
  readonly memoryMb?: number;
  readonly pidsLimit?: number;
  readonly writableRootFilesystem?: boolean;
  readonly user?: { readonly uid: number; readonly gid: number };
  readonly volume?: Array<{ source: string; target: string; readOnly: boolean }>;
  readonly agentModule?: string;
  /** `name=value` options handed to the provider as strings, for options without a flag of their own. */
  readonly providerOption?: string[];
  readonly copy?: string[];
  /** Keep a replayable journal (commits with verified patches) and print its reference. */
  readonly record?: boolean;
  /** Path of a JSON Schema file: the answer's `<response>` block is validated against it and printed. */
  readonly response?: string;
  /** Path of a JSON pricing table (`{ models, budgetUsd? }`): cost per turn and per run, and a budget. */
  readonly pricing?: string;
  /** `guard.protectedPaths`: paths the agent must not change (repeatable). */
  readonly protect?: string[];
  readonly maxChangedLines?: number;
  readonly maxChangedFiles?: number;
  /** The watchdog stops the agent (code stuck) after the same tool call or text this many times in a turn. */
  readonly watchdog?: number;
  /** `redact`: literal values, or `/regex/flags`, kept out of everything the run stores or prints (repeatable). */
  readonly redact?: string[];
}

const VERSION = "0.1.0";

/** The `outpost` command tree. Actions import their implementation lazily to keep startup fast. */
export function buildProgram(io: ProgramIo): Command {
  const program = new Command("outpost")
    .description("Run coding-agent CLIs in sandboxes on a branch of your repository, and bring their work back.")
    .version(VERSION, "-V, --version")
    .showHelpAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });

  program
    .command("run")
    .description("Hand a brief to an agent in a sandbox and report its answer, commits and conversation.")
    .argument("<brief>", "the task, as text (use @path to read a brief file relative to the repository)")
    .option("-a, --agent <name>", "installed agent to run (see `outpost agents`; or use --agent-module)")
    .option(
      "-p, --provider <provider>",
      "installed sandbox provider to run in (see `outpost providers`; default: the first that reports itself available)",
    )
    .option("-b, --branch <policy>", 'branch policy: "current", "integrate", or a branch name for a named worktree', "current")
    .option("-c, --continue <id>", "continue this captured conversation (one pass)")
    .option("--fork", "with --continue: continue a copy, leave the original intact")
    .option("--json", "print one JSON event per line instead of the progress display")
    .option("-v, --verbose", "also show diagnostics (brief expansion sizes, phase timings)")
    .option("-l, --label <text>", "name shown for this dispatch")
    .option("-m, --model <model>", "model passed to the agent")
    .option(
      "--base-url <url>",
      "model endpoint instead of the vendor API (or OUTPOST_<AGENT>_BASE_URL); key from OUTPOST_API_KEY or the vendor variable",
    )
    .option("--executable <path>", "agent CLI to run instead of the one on PATH (or OUTPOST_<AGENT>_EXECUTABLE)")
    .option("--agent-version <version>", "the agent CLI's release (major.minor.patch) instead of asking it with --version")
    .option("--passes <n>", "maximum passes, each a new conversation", positiveInteger, 1)
    .option("--until <marker>", "end marker (repeatable; default <outpost>done</outpost>)", collect)
    .option("--idle-ms <ms>", "longest accepted silence of the agent", positiveInteger)
    .option("--deadline-ms <ms>", "longest run of each agent process", positiveInteger)
    .option("-r, --repository <path>", "path inside the git checkout (default: current directory)")
    .option(
      "--response <schema.json>",
      "typed response: validate the answer's <response> block against this JSON Schema and print the value",
    )
    .option("--copy <path>", "file copied from the checkout into a new worktree (repeatable)", collect)
    .option(
      "--conversation-home <dir>",
      "where captured conversations are stored, under <dir>/.outpost/conversations (default: where the agent's plugin keeps them, your home or the repository)",
    )
    .option(
      "--require-conversation",
      "fail the run (exit status of code session, work kept) when the agent's conversation cannot be captured for --continue",
    )
    .option(
      "--inherit-environment",
      "host providers: hand your whole environment (keys, tokens…) to the agent; default: only PATH, locale, terminal, proxies and the agent's own variables",
    )
    .option("--image <image>", "container providers: image to run")
    .option(
      "--network <network>",
      "container providers: bridge (default: the agent reaches its model endpoint), none (no egress), host (a model server on 127.0.0.1) or a network name",
    )
    .option("--cpus <n>", "container providers: CPU limit (default 2)", positiveNumber)
    .option("--memory-mb <mb>", "container providers: memory limit in MiB, swap included (default 4096)", positiveInteger)
    .option("--pids-limit <n>", "container providers: most processes in the container (default 1024)", positiveInteger)
    .option(
      "--writable-root-filesystem",
      "container providers: let the agent write the image's root filesystem (default: read-only; root, home and /tmp are writable)",
    )
    .option(
      "--user <uid:gid>",
      "container providers: numeric user the container runs as (default: the worktree's owner; yours when you are root)",
      userSpec,
    )
    .option(
      "--volume <host:container[:ro]>",
      "container providers: extra mount, e.g. an agent CLI installed on the host (repeatable)",
      volumeSpec,
    )
    .option(
      "--provider-option <name=value>",
      "an option for the chosen provider, by the name its descriptor declares (repeatable; see `outpost doctor`)",
      collect,
    )
    .option("--agent-module <path>", "load the agent from a module exporting createAgent() instead of an installed plugin")
    .option("--record", "keep a replayable journal of the run (commits with verified patches) and print its reference for `outpost replay`")
    .option("--protect <path>", "path the agent must not change (repeatable; `*` within a segment, `**` across): else code guard", collect)
    .option("--max-changed-lines <n>", "most added plus deleted lines the work may have: else code guard, work kept", positiveInteger)
    .option("--max-changed-files <n>", "most files the work may change: else code guard, work kept", positiveInteger)
    .option(
      "--watchdog <repeats>",
      "stop the agent (code stuck) after the same tool call or text this many times in a turn",
      positiveInteger,
    )
    .option(
      "--redact <value-or-/regex/>",
      "a value (or /regular expression/flags) never stored or printed: events, journal, records, errors, --json (repeatable); credential variables always are",
      collect,
    )
    .option(
      "--pricing <file>",
      'JSON prices per model in USD per million tokens ({"models": {"<model>": {"input": 3, "output": 15}}, "budgetUsd": 5}): cost per turn and per run; the budget stops the run (code limit)',
    )
    .addHelpText("after", () => io.runHelp ?? "")
    .exitOverride()
    .action(async function (this: Command, brief: string, flags: RunFlags) {
      // The flags given on the command line win over .outpost/config.json; the others take its values.
      const given = new Set(Object.keys(flags).filter((name) => this.getOptionValueSource(name) === "cli"));
      const { runCommand } = await import("./run/run-command.js");
      io.setExitCode(await runCommand(brief, flags, io, given));
    });

  program
    .command("demo")
    .description(
      "Try Outpost offline, with no key: a scripted model server, an installed agent's real CLI, a scratch repository; one commit, then a continuation.",
    )
    .option("-a, --agent <name>", "installed agent to run (default: the first whose CLI is found)")
    .option("--executable <path>", "agent CLI to run instead of the one found on PATH or in node_modules/.bin")
    .option("--keep", "keep the scratch repository and conversations instead of removing them")
    .option(
      "-p, --provider <name>",
      "local (default), or an installed provider of containers on this machine: both turns in a container on the host's network, which reaches the scripted server",
    )
    .option(
      "--image <image>",
      "container providers: the agent image (default: the provider's, outpost-agents:latest from `outpost image build`)",
    )
    .option(
      "--volume <host:container[:ro]>",
      "container providers: extra mount, e.g. an agent CLI installed on the host (repeatable)",
      collect,
      [],
    )
    .exitOverride()
    .action(async (flags: { agent?: string; executable?: string; keep?: boolean; provider?: string; image?: string; volume: string[] }) => {
      const { demoCommand } = await import("./demo/demo-command.js");
      io.setExitCode(await demoCommand(flags, io));
    });

  program
    .command("init")
    .description(
      "Write .outpost/ in this checkout: config.json (defaults of outpost run), .env.example, a Dockerfile for the agent image; and .gitignore lines.",
    )
    .option("-a, --agent <name>", "default agent (default: the first installed)")
    .option("-p, --provider <name>", "default provider (default: none, the first available at each run)")
    .option("-r, --repository <path>", "path inside the git checkout (default: current directory)")
    .option("-f, --force", "overwrite files that differ from what init writes")
    .exitOverride()
    .action(async (flags: { agent?: string; provider?: string; repository?: string; force?: boolean }) => {
      const { initCommand } = await import("./init/init-command.js");
      io.setExitCode(await initCommand(flags, io));
    });

  addReplayCommand(program, io);

  program
    .command("ps")
    .description("List this repository's dispatches: running, dead (runner gone), or ended with kept work.")
    .option("-r, --repository <path>", "path inside the git checkout (default: current directory)")
    .option("--json", "one JSON object per dispatch")
    .exitOverride()
    .action(async (flags: { repository?: string; json?: boolean }) => {
      const { psCommand } = await import("./maintenance/maintenance-commands.js");
      io.setExitCode(await psCommand(flags, io));
    });

  program
    .command("clean")
    .description(
      "Clean up dead and ended dispatches: stop orphaned agents, remove their sandboxes (containers, cloud sandboxes), " +
        "temporary directories, worktrees and branches holding nothing unmerged. Never touches a running dispatch.",
    )
    .argument("[id...]", "only these dispatches (ids or unique prefixes, as `outpost ps` shows them)")
    .option("-n, --dry-run", "say what would be done, do nothing")
    .option("--discard", "also drop the work a clean keeps (uncommitted changes, unmerged commits); asks first")
    .option("-y, --yes", "with --discard: do not ask")
    .option("-r, --repository <path>", "path inside the git checkout (default: current directory)")
    .option("--json", "print the report as JSON")
    .exitOverride()
    .action(async (ids: string[], flags: { repository?: string; json?: boolean; dryRun?: boolean; discard?: boolean; yes?: boolean }) => {
      const { cleanCommand } = await import("./maintenance/maintenance-commands.js");
      io.setExitCode(await cleanCommand(ids, flags, io));
    });

  program
    .command("recover")
    .description(
      "Bring back a dead or ended dispatch's work: merge an integrate branch into its target, or check a named branch out again.",
    )
    .argument("<id>", "the dispatch id (or a unique prefix)")
    .option("--discard", "drop the dispatch's work instead (its worktree, branch, sandbox); asks first")
    .option("-y, --yes", "with --discard: do not ask")
    .option("-r, --repository <path>", "path inside the git checkout (default: current directory)")
    .option("--json", "print the result as JSON")
    .exitOverride()
    .action(async (id: string, flags: { repository?: string; json?: boolean; discard?: boolean; yes?: boolean }) => {
      const { recoverCommand } = await import("./maintenance/maintenance-commands.js");
      io.setExitCode(await recoverCommand(id, flags, io));
    });

  program
    .command("unlock")
    .description("Break a lock under .outpost/locks: at once when its holder is gone, with --force when it looks alive.")
    .argument("<lock>", "the lock's name (e.g. integrate-main) or its path")
    .option("-f, --force", "also break a lock whose holder looks alive (you know it is not an outpost run any more)")
    .option("-r, --repository <path>", "path inside the git checkout (default: current directory)")
    .option("--json", "print the result as JSON")
    .exitOverride()
    .action(async (lock: string, flags: { repository?: string; json?: boolean; force?: boolean }) => {
      const { unlockCommand } = await import("./maintenance/maintenance-commands.js");
      io.setExitCode(await unlockCommand(lock, flags, io));
    });

  program
    .command("doctor")
    .description(
      "For each installed agent and provider: what is found (CLI release against the pinned and tested ones, credentials present or not, " +
        "the sandbox engine) and what to do when something is missing. Exits 1 when something asked about cannot run.",
    )
    .option("--json", "one JSON object per agent and provider")
    .option("-a, --agent <name>", "only this agent, which must be able to run (repeatable)", collect)
    .option("-p, --provider <name>", "probe the CLIs in a sandbox of this provider instead of on this host")
    .exitOverride()
    .action(async (flags: { json?: boolean; agent?: string[]; provider?: string }) => {
      const { doctorCommand } = await import("./doctor/doctor-command.js");
      io.setExitCode(await doctorCommand(flags, io));
    });

  for (const kind of ["agent", "provider"] as const) {
    program
      .command(`${kind}s`)
      .description(`List the installed ${kind} plugins (name and package).`)
      .exitOverride()
      .action(() => {
        io.stdout.write(
          findPlugins(kind)
            .map((plugin) => `${plugin.name}\t${plugin.packageName}\n`)
            .join(""),
        );
      });
  }

  addPluginCommands(program, io);

  // Computed only when help is shown: installed plugins, from their package.json files alone.
  program.addHelpText("after", () => {
    const list = (kind: "agent" | "provider"): string =>
      findPlugins(kind)
        .map((plugin) => plugin.name)
        .join(", ") || "none installed";
    return `\nInstalled agents: ${list("agent")}\nInstalled providers: ${list("provider")}\n`;
  });

  return shortUsageErrors(program);
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError("expected a positive integer.");
  return number;
}

function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError("expected a positive number.");
  return number;
}

function userSpec(value: string): { uid: number; gid: number } {
  const match = /^(\d+):(\d+)$/.exec(value);
  if (!match) throw new InvalidArgumentError("expected <uid>:<gid>, such as 1000:1000.");
  return { uid: Number(match[1]), gid: Number(match[2]) };
}

function volumeSpec(value: string, previous: Array<{ source: string; target: string; readOnly: boolean }> | undefined) {
  const match = /^(\/[^:]*):(\/[^:]*)(?::(ro|rw))?$/.exec(value);
  if (!match) throw new InvalidArgumentError("expected /host/path:/container/path[:ro].");
  return [...(previous ?? []), { source: match[1]!, target: match[2]!, readOnly: match[3] === "ro" }];
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
