import { describe, expect, it } from "vitest";
import type { CommandChannel } from "@outpost/core";
import { checkCommand, CommandOutput, commandOutputs, startFailure } from "../src/index.js";

function observed(): { seen: string[]; observe: (channel: CommandChannel, text: string) => void } {
  const seen: string[] = [];
  return { seen, observe: (channel, text) => seen.push(`${channel}:${text}`) };
}

describe("CommandOutput", () => {
  it("hands observe whole characters when a byte stream splits one between chunks", () => {
    const { seen, observe } = observed();
    const output = new CommandOutput("stdout", 1024, observe);
    const bytes = Buffer.from("a😀b", "utf8");
    for (let index = 0; index < bytes.length; index++) output.push(bytes.subarray(index, index + 1));
    output.end();
    expect(seen.join("")).toBe("stdout:astdout:😀stdout:b");
    expect(output.text()).toBe("a😀b");
  });

  it("passes text through as given and keeps the same tail as for bytes", () => {
    const { seen, observe } = observed();
    const text = new CommandOutput("stderr", 6, observe);
    const bytes = new CommandOutput("stderr", 6, undefined);
    for (const chunk of ["héllo ", "wörld"]) {
      text.push(chunk);
      bytes.push(Buffer.from(chunk, "utf8"));
    }
    expect(seen).toEqual(["stderr:héllo ", "stderr:wörld"]);
    expect(text.text()).toBe(bytes.text());
    expect(text.text()).toBe("wörld");
  });

  it("delivers an incomplete last character at the end, and an observer that throws breaks nothing", () => {
    const seen: string[] = [];
    const output = new CommandOutput("stdout", 16, (_channel, text) => {
      seen.push(text);
      throw new Error("observer failure");
    });
    output.push(Buffer.from([0x61, 0xe2, 0x82]));
    output.end();
    expect(seen).toEqual(["a", "\ufffd"]);
  });

  it("commandOutputs retains command.retain bytes per channel", () => {
    const output = commandOutputs({ executable: "x", retain: 3 });
    output.stdout.push("abcdef");
    output.stderr.push(Buffer.from("uvwxyz"));
    expect([output.stdout.text(), output.stderr.text()]).toEqual(["def", "xyz"]);
  });
});

describe("checkCommand", () => {
  it("returns the lease root, or the directory resolved inside it", () => {
    expect(checkCommand({ executable: "ls" }, "/work", "Test")).toBe("/work");
    expect(checkCommand({ executable: "ls", directory: "sub" }, "/work", "Test")).toBe("/work/sub");
  });

  it.each([
    [{ executable: "" }, /non-empty program/],
    [{ executable: "a\0b" }, /non-empty program/],
    [{ executable: "ls", interactive: true }, /Test provider does not attach terminals/],
    [{ executable: "ls", variables: { "A=B": "1" } }, /Refused the variable/],
    [{ executable: "ls", variables: { "": "1" } }, /Refused the variable/],
    [{ executable: "ls", variables: { A: "x\0y" } }, /Refused the variable/],
  ])("refuses %j as configuration", (command, message) => {
    expect(() => checkCommand(command, "/work", "Test")).toThrow(
      expect.objectContaining({ code: "configuration", message: expect.stringMatching(message) }),
    );
  });

  it("refuses a directory outside the lease root", () => {
    expect(() => checkCommand({ executable: "ls", directory: "../etc" }, "/work", "Test")).toThrow(
      expect.objectContaining({ code: "workspace" }),
    );
  });
});

describe("startFailure", () => {
  it("is undefined once a process started, workspace for a missing directory, process for a missing executable", () => {
    expect(startFailure({ pid: 7 }, "ls", "/work", "Install it.")).toBeUndefined();
    expect(startFailure({ missing: "directory" }, "ls", "/work/x", "Install it.")).toMatchObject({
      code: "workspace",
      details: { directory: "/work/x" },
    });
    const missing = startFailure({ missing: "executable" }, "nope", "/work", "Install it.");
    expect(missing).toMatchObject({ code: "process", details: { executable: "nope" } });
    expect(missing?.message).toMatch(/not found in the sandbox\. Install it\.$/);
  });
});
