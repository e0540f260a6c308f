import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { scratchRepository, scriptAgent } from "../src/index.js";

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));

describe("dispatch agent home files", () => {
  it("writes every file (nested, sharing directories) as 0600 in 0700 directories; a path given twice keeps its last content", async () => {
    const repository = scratchRepository();
    const home = mkdtempSync(join(tmpdir(), "outpost-home-files-"));
    const base = scriptAgent({ directory: agentDirectory });
    const files = [
      { path: ".tool/settings.json", content: "first" },
      { path: ".tool/nested/deeper/auth.json", content: "secret" },
      { path: ".tool/nested/other.json", content: "other" },
      { path: "top.txt", content: "top" },
      { path: ".tool/settings.json", content: "last" },
    ];
    const result = await dispatch({
      agent: { ...base, homeFiles: () => files },
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home }),
    });
    expect(result.text).not.toBe("");
    const read = (path: string) => readFileSync(join(home, path), "utf8");
    expect(read(".tool/settings.json")).toBe("last");
    expect(read(".tool/nested/deeper/auth.json")).toBe("secret");
    expect(read(".tool/nested/other.json")).toBe("other");
    expect(read("top.txt")).toBe("top");
    for (const file of files) expect(statSync(join(home, file.path)).mode & 0o777, file.path).toBe(0o600);
    for (const directory of [".tool", ".tool/nested", ".tool/nested/deeper"])
      expect(statSync(join(home, directory)).mode & 0o777, directory).toBe(0o700);
  });
});
