import { OutpostError } from "@outpost/core";
import { checkoutRoot, readConfig, type LoadedConfig } from "./config-file.js";
import { defaultsHelp } from "./run-defaults.js";

/** The defaults section of `outpost run --help` for the checkout at `-r <path>` or the working directory. */
export async function runHelpText(argv: readonly string[]): Promise<string> {
  const root = checkoutRoot(repositoryArgument(argv) ?? process.cwd());
  let loaded: LoadedConfig | undefined;
  let problem: string | undefined;
  try {
    loaded = root === undefined ? undefined : await readConfig(root);
  } catch (error) {
    if (!OutpostError.isInstance(error)) throw error;
    problem = `ignored: ${error.message}`;
  }
  return defaultsHelp(loaded, problem);
}

function repositoryArgument(argv: readonly string[]): string | undefined {
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word === "-r" || word === "--repository") return argv[index + 1];
    if (word.startsWith("--repository=")) return word.slice("--repository=".length);
  }
  return undefined;
}
