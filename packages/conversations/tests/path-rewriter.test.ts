import { describe, expect, it } from "vitest";
import { createPathRewriter, rewriteJsonLine } from "../src/index.js";

const rewrite = createPathRewriter([
  { from: "/work/repo", to: "/srv/new-place" },
  { from: "/root", to: "/home/agent" },
]);

describe("createPathRewriter", () => {
  it("rewrites a path, its children and its mentions in prose", () => {
    expect(rewrite("/work/repo")).toBe("/srv/new-place");
    expect(rewrite("cd /work/repo/src && ls")).toBe("cd /srv/new-place/src && ls");
    expect(rewrite("in /work/repo, then /work/repo: done")).toBe("in /srv/new-place, then /srv/new-place: done");
  });

  it("never touches a longer name or a path that merely ends the same way", () => {
    expect(rewrite("/work/repository /work/repo.old /work/repo-2 /x/work/repo /work/repo_a /work/repoé")).toBe(
      "/work/repository /work/repo.old /work/repo-2 /x/work/repo /work/repo_a /work/repoé",
    );
  });

  it("prefers the longest path, so a workspace inside the home keeps its own destination", () => {
    const nested = createPathRewriter([
      { from: "/root", to: "/home/a" },
      { from: "/root/repo", to: "/w" },
    ]);
    expect(nested("/root/repo/x /root/.codex/skills")).toBe("/w/x /home/a/.codex/skills");
  });

  it("treats a JSON escape before the path as a boundary", () => {
    expect(rewrite(String.raw`"dir:\n/work/repo/a"`)).toBe(String.raw`"dir:\n/srv/new-place/a"`);
  });

  it("rewrites the paths of git diff headers, which drop the leading slash after a/ and b/", () => {
    expect(rewrite("diff --git a/work/repo/x b/work/repo/x\n--- a/work/repo/x")).toBe("diff --git a/srv/new-place/x b/srv/new-place/x\n--- a/srv/new-place/x");
    expect(rewrite("/data/work/repo /b/work/repo xa/work/repo")).toBe("/data/work/repo /b/work/repo xa/work/repo");
  });

  it("keeps text without any recorded path identical", () => {
    const text = "nothing to see here \u2028 ünïcode";
    expect(rewrite(text)).toBe(text);
  });

  it("ignores identical and root pairs", () => {
    expect(createPathRewriter([{ from: "/", to: "/x" }, { from: "/a", to: "/a" }])("/a/b /c")).toBe("/a/b /c");
  });
});

describe("rewriteJsonLine", () => {
  it("rewrites escaped spellings of a path and leaves every other byte alone", () => {
    const line = String.raw`{"cwd":"\/work\/repo","n":1.50,"t":"\u00e9 /work/repository","k" : [ "/work/repo/x" ]}`;
    const result = rewriteJsonLine(line, rewrite);
    expect(result).toBe(String.raw`{"cwd":"/srv/new-place","n":1.50,"t":"\u00e9 /work/repository","k" : [ "/srv/new-place/x" ]}`);
    expect(JSON.parse(result).cwd).toBe("/srv/new-place");
  });

  it("rewrites object keys too (gemini's projects.json is keyed by path)", () => {
    expect(rewriteJsonLine(String.raw`{"projects":{"\/work\/repo":"repo"}}`, rewrite)).toBe(String.raw`{"projects":{"/srv/new-place":"repo"}}`);
  });

  it("survives a truncated last line", () => {
    expect(rewriteJsonLine(String.raw`{"a":"\u0041","cwd":"/work/repo/x`, rewrite)).toBe(String.raw`{"a":"\u0041","cwd":"/srv/new-place/x`);
  });
});
