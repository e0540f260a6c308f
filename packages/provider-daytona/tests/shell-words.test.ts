import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sessionLine, shellCommand } from "../src/shell-words.js";

/** Runs the line as the session shell would and returns the variables the command saw. */
function seen(variables: Record<string, string>): Record<string, string> {
  const print = shellCommand(["node", "-e", "process.stdout.write(JSON.stringify(process.env))"]);
  return JSON.parse(execFileSync("sh", ["-c", sessionLine(variables, print)], { encoding: "utf8" })) as Record<string, string>;
}

describe("sessionLine", () => {
  it("passes plain names as assignments (no env process), values with quotes, spaces, $ and newlines intact", () => {
    const variables = { PLAIN: 'it\'s a "test" $HOME `x` \\ \n end', EMPTY: "", HOME: "/home/agent" };
    expect(sessionLine(variables, "true")).not.toMatch(/^env /);
    expect(seen(variables)).toMatchObject(variables);
  });

  it("passes a name that is not a shell name, or one the shell owns, through env", () => {
    const variables = { "DOTTED.NAME": "a", PPID: "7", NORMAL: "b" };
    expect(sessionLine(variables, "true")).toMatch(/^env /);
    expect(seen(variables)).toMatchObject(variables);
  });

  it("leaves the session's shell as it was: same process, variables, directory, and the input queued behind it", () => {
    // The shell reads the line, then the commands after it, from its stdin, as a Daytona session does.
    const line = sessionLine({ HOME: "/elsewhere", FOO: "changed" }, shellCommand(["sh", "-c", 'cd / && cat; echo "$FOO $HOME"']));
    const script = `FOO=before; echo "pid $$"\n{ ${line}; }\necho "after $? $$ $FOO $HOME $(pwd)"\n`;
    const output = execFileSync("sh", { input: script, encoding: "utf8", cwd: "/tmp", env: { ...process.env, HOME: "/home/agent" } });
    const [first, command, after] = output.trim().split("\n");
    const pid = first!.replace("pid ", "");
    expect(command).toBe("changed /elsewhere");
    expect(after).toBe(`after 0 ${pid} before /home/agent /tmp`);
  });
});
