import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { execWithVariables, shellCommand } from "../src/shell-words.js";

/** Runs the line as the session shell would and returns the variables the command saw. */
function seen(variables: Record<string, string>): Record<string, string> {
  const print = shellCommand(["node", "-e", "process.stdout.write(JSON.stringify(process.env))"]);
  return JSON.parse(execFileSync("sh", ["-c", execWithVariables(variables, print)], { encoding: "utf8" })) as Record<string, string>;
}

describe("execWithVariables", () => {
  it("passes plain names as assignments (no env process), values with quotes, spaces, $ and newlines intact", () => {
    const variables = { PLAIN: 'it\'s a "test" $HOME `x` \\ \n end', EMPTY: "", HOME: "/home/agent" };
    expect(execWithVariables(variables, "true")).not.toMatch(/^exec env/);
    expect(seen(variables)).toMatchObject(variables);
  });

  it("passes a name that is not a shell name, or one the shell owns, through env", () => {
    const variables = { "DOTTED.NAME": "a", PPID: "7", NORMAL: "b" };
    expect(execWithVariables(variables, "true")).toMatch(/^exec env /);
    expect(seen(variables)).toMatchObject(variables);
  });
});
