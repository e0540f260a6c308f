import type { Writable } from "node:stream";

/**
 * Feeds a command's stdin: the `stdin` text first, then `input` piped until it ends, without ending the pipe
 * (the caller closes it once both are done). Resolves when `input` ended or failed, so a broken input never
 * hangs the command; rejects when the pipe itself fails.
 */
export function feedStdin(pipe: Writable, stdin: string | undefined, input: NodeJS.ReadableStream | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    pipe.once("error", reject);
    if (stdin !== undefined && stdin !== "") pipe.write(stdin);
    if (input === undefined) return resolve();
    const finish = () => {
      input.unpipe(pipe);
      resolve();
    };
    input.once("end", finish);
    input.once("error", finish);
    pipe.once("close", () => input.unpipe(pipe));
    input.pipe(pipe, { end: false });
  });
}
