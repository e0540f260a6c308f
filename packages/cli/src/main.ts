import { isCommanderError } from "./commander.js";
import { buildProgram } from "./program.js";
import { EXIT_CODES } from "./exit-codes.js";

/** Runs the CLI with `argv` (as in process.argv); resolves with the exit code. */
export async function main(
  argv: readonly string[],
  io: { stdout?: NodeJS.WritableStream; stderr?: NodeJS.WritableStream; stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean } } = {},
): Promise<number> {
  let exitCode: number = EXIT_CODES.success;
  const stdout = io.stdout ?? process.stdout;
  // Only `outpost run --help` reads the config file, to say where each default comes from.
  const runHelp = isRunHelp(argv) ? await (await import("./config/run-help.js")).runHelpText(argv) : undefined;
  const program = buildProgram({
    runHelp,
    stdout,
    stderr: io.stderr ?? process.stderr,
    // On first use only: process.stdin of a file or pipe builds a read stream (fs streams, fs/promises,
    // readline: a dozen internal modules) that only `outpost run` on a terminal reads.
    get stdin() {
      return io.stdin ?? process.stdin;
    },
    setExitCode: (code) => {
      exitCode = code;
    },
  });
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (isCommanderError(error)) {
      // --help and --version exit 0; unknown options and missing arguments exit with the usage code.
      if (error.exitCode === 0) return EXIT_CODES.success;
      // Under --json a program reads stdout: the usage error comes as the same error object a run ends with.
      if (argv.includes("--json"))
        stdout.write(
          `${JSON.stringify({ type: "error", code: "configuration", message: error.message.replace(/^error: /, ""), details: { commander: error.code } })}\n`,
        );
      return EXIT_CODES.usage;
    }
    throw error;
  }
  return exitCode;
}

function isRunHelp(argv: readonly string[]): boolean {
  const words = argv.slice(2);
  return (words[0] === "run" && (words.includes("--help") || words.includes("-h"))) || (words[0] === "help" && words[1] === "run");
}
