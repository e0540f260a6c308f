import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FRAMED_COMMAND_WRAPPER, WrapperHeader } from "../src/index.js";

// How Daytona's daemon relays a session command's output: line by line (`read -r`, each line printed with a
// newline), so nothing reaches the host before a newline does.
const LINE_RELAY = `while IFS= read -r line || [ -n "$line" ]; do printf '%s\\n' "$line"; done`;

/** Runs the wrapper behind the line relay; resolves with the first stdout chunk and whether `marker` existed then. */
function firstChunk(argv: readonly string[], marker: string): Promise<{ chunk: string; markerThen: boolean; rest: Promise<string> }> {
  const child = spawn("/bin/sh", ["-c", `/bin/sh -c "$0" outpost "$@" | ${LINE_RELAY}`, FRAMED_COMMAND_WRAPPER, tmpdir(), "-", ...argv]);
  let all = "";
  const rest = new Promise<string>((resolve) => child.once("close", () => resolve(all)));
  return new Promise((resolve) => {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      if (all === "") resolve({ chunk: text, markerThen: existsSync(marker), rest });
      all += text;
    });
  });
}

describe("FRAMED_COMMAND_WRAPPER's header", () => {
  it("is a whole line: relayed line by line, the pid reaches the host while a silent command still runs", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "outpost-wrapper-")), "done");
    const { chunk, markerThen, rest } = await firstChunk(["/bin/sh", "-c", `sleep 1; : > '${marker}'; printf late`], marker);
    expect(chunk).toMatch(/^P\d{10}\n/);
    expect(markerThen).toBe(false);
    // The header is taken off; the command's own output follows it untouched (the relay ends its last line).
    const outputs: string[] = [];
    const header = new WrapperHeader((text) => outputs.push(text));
    header.push(await rest);
    expect(header.start).toEqual({ pid: Number(chunk.slice(1, 11)) });
    expect(outputs.join("")).toBe("late\n");
  });

  it("reports a missing directory or executable as a line too", async () => {
    for (const [argv, missing] of [
      [["no-such-executable-outpost"], "executable"],
      [["/bin/true"], "directory"],
    ] as const) {
      const directory = missing === "directory" ? join(tmpdir(), "outpost-no-such-directory") : tmpdir();
      const child = spawn("/bin/sh", ["-c", FRAMED_COMMAND_WRAPPER, "outpost", directory, "-", ...argv]);
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      await new Promise((resolve) => child.once("close", resolve));
      const header = new WrapperHeader(() => undefined);
      header.push(stdout);
      expect([stdout, header.start]).toEqual([missing === "directory" ? "D\n" : "X\n", { missing }]);
    }
  });
});

/** Runs `cat` through the wrapper with input frames in `input`; resolves with its output after the header, and its status. */
function catThroughFrames(input: string): Promise<{ output: string; status: number | null }> {
  const child = spawn("/bin/sh", ["-c", FRAMED_COMMAND_WRAPPER, "outpost", tmpdir(), input, "cat"]);
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once("close", (status) => resolve({ output: stdout.slice(12), status })));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("FRAMED_COMMAND_WRAPPER's input reader", () => {
  it("feeds frames in order however their files land: end first (torn, then whole), a later frame before an earlier, a marker before its frame is whole", async () => {
    const input = mkdtempSync(join(tmpdir(), "outpost-frames-"));
    const ran = catThroughFrames(input);
    const write = async (name: string, content: string) => {
      writeFileSync(join(input, name), content);
      await pause(60);
    };
    await write("end", "2");
    await write("1", "second");
    await write("1.ok", "6\n");
    await write("end", "2\n");
    await write("0.ok", "6\n");
    await write("0", "fir");
    expect(existsSync(join(input, "0")) && existsSync(join(input, "1"))).toBe(true);
    await write("0", "first ");
    expect(await ran).toEqual({ output: "first second", status: 0 });
  });

  it("ends the input at once when end counts no frame", async () => {
    const input = mkdtempSync(join(tmpdir(), "outpost-frames-"));
    const ran = catThroughFrames(input);
    writeFileSync(join(input, "end"), "0\n");
    expect(await ran).toEqual({ output: "", status: 0 });
  });
});
