import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

// The installed `outpost` command (bin/outpost.cjs), the same from src/demo and dist/demo.
const BIN = fileURLToPath(new URL("../../bin/outpost.cjs", import.meta.url));

export interface CliRun {
  readonly status: number;
  /** The conversation id the run printed (its `continue with` hint), if any. */
  readonly conversationId: string | undefined;
  /** Everything it printed on stdout. */
  readonly output: string;
}

/**
 * Runs `outpost <args>` as a user would, in a child process with `variables` added to the environment.
 * Its output is copied to ours as it comes, and read for the conversation id.
 */
export function runCli(
  args: readonly string[],
  variables: Readonly<Record<string, string>>,
  io: { readonly stdout: NodeJS.WritableStream; readonly stderr: NodeJS.WritableStream },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...variables }, stdio: ["ignore", "pipe", "pipe"] });
    let printed = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      printed += text;
      io.stdout.write(indent(text));
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => io.stderr.write(indent(text)));
    child.on("error", reject);
    child.on("close", (status) => {
      const id = /conversation: (\S+) \(continue with/.exec(printed)?.[1];
      resolve({ status: status ?? 1, conversationId: id, output: printed });
    });
  });
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, "  │ ");
}
