import { spawn } from "node:child_process";
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { feedStdin } from "@outpost/plugin-utils";

// A real `cat` reads what feedStdin sends: the text first, then the piped input, and nothing is lost.
function cat() {
  const child = spawn("cat", [], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  const exited = new Promise<string>((resolve) => child.once("close", () => resolve(out)));
  return { child, exited };
}

describe("feedStdin", () => {
  it("writes the text, then the whole input, and leaves the pipe open for the caller to end", async () => {
    const { child, exited } = cat();
    await feedStdin(child.stdin, "first\n", Readable.from(["second\n", "third\n"]));
    expect(child.stdin.writableEnded).toBe(false);
    child.stdin.end();
    expect(await exited).toBe("first\nsecond\nthird\n");
  });

  it("resolves when the input fails, so a broken input never hangs the command", async () => {
    const { child, exited } = cat();
    const input = new PassThrough();
    const fed = feedStdin(child.stdin, undefined, input);
    input.write("partial\n");
    input.destroy(new Error("host file vanished"));
    await fed;
    child.stdin.end();
    expect(await exited).toBe("partial\n");
  });

  it("rejects when the pipe itself fails", async () => {
    const pipe = new PassThrough();
    const fed = feedStdin(pipe, undefined, new PassThrough());
    pipe.destroy(new Error("EPIPE"));
    await expect(fed).rejects.toThrow("EPIPE");
  });
});
