import { describe, expect, it } from "vitest";
import { daemonArgv } from "@outpost/cloud-doubles/daytona";
import { daemonCommand } from "../src/daemon-words.js";

describe("daemonCommand", () => {
  it("writes words the daemon's parseCommand splits back exactly: quotes, spaces, newlines, $, && and backslashes", () => {
    const argv = ["/bin/sh", "-c", `it's "quoted" && echo $HOME \\ '' \n\ttab`, "a b", "'", '"', `'"'"`, "x\\'y"];
    expect(daemonArgv(daemonCommand(argv))).toEqual(argv);
  });

  it("refuses an empty word, which the daemon would drop", () => {
    expect(() => daemonCommand(["rm", ""])).toThrow(expect.objectContaining({ code: "configuration" }));
  });
});
