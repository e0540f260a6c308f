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
    expect(rewrite("diff --git a/work/repo/x b/work/repo/x\n--- a/work/repo/x")).toBe(
      "diff --git a/srv/new-place/x b/srv/new-place/x\n--- a/srv/new-place/x",
    );
    expect(rewrite("/data/work/repo /b/work/repo xa/work/repo")).toBe("/data/work/repo /b/work/repo xa/work/repo");
  });

  it("keeps text without any recorded path identical", () => {
    const text = "nothing to see here \u2028 ünïcode";
    expect(rewrite(text)).toBe(text);
  });

  it("ignores identical and root pairs", () => {
    expect(
      createPathRewriter([
        { from: "/", to: "/x" },
        { from: "/a", to: "/a" },
      ])("/a/b /c"),
    ).toBe("/a/b /c");
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
    expect(rewriteJsonLine(String.raw`{"projects":{"\/work\/repo":"repo"}}`, rewrite)).toBe(
      String.raw`{"projects":{"/srv/new-place":"repo"}}`,
    );
  });

  it("survives a truncated last line", () => {
    expect(rewriteJsonLine(String.raw`{"a":"\u0041","cwd":"/work/repo/x`, rewrite)).toBe(String.raw`{"a":"\u0041","cwd":"/srv/new-place/x`);
  });
});

describe("createBytePathRewriter and relocateFile", () => {
  const pairs = [
    { from: "/work/repo", to: "/srv/new-place" },
    { from: "/root", to: "/home/agent" },
  ];
  const samples = [
    "/work/repo",
    "cd /work/repo/src && ls /root/.x",
    "/work/repository /work/repo.old /x/work/repo é/work/repo —/work/repo /work/repoé /work/repo—",
    String.raw`"a\n/work/repo" "\\n/work/repo"`,
    "diff --git a/work/repo/x b/work/repo/x",
    "",
    "no paths here ✓",
  ];

  it("rewrites bytes exactly as the text rewriter rewrites text", async () => {
    const { createBytePathRewriter } = await import("../src/relocation/byte-path-rewriter.js");
    const bytes = createBytePathRewriter(pairs);
    const text = createPathRewriter(pairs);
    for (const sample of samples) expect(bytes(Buffer.from(sample)).toString("utf8"), sample).toBe(text(sample));
  });

  it("streams a multi-megabyte JSONL file with escapes and multi-byte characters across chunk boundaries", async () => {
    const { mkdtemp, readFile, rm, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { relocateFile } = await import("../src/index.js");
    const directory = await mkdtemp(join(tmpdir(), "outpost-relocate-"));
    try {
      const lines: string[] = [];
      for (let index = 0; index < 40_000; index += 1) {
        const escaped = index % 7 === 0 ? String.raw`"esc":"\/work\/repo\/e\u00e9","ansi":"\u001b[1m",` : "";
        lines.push(`{${escaped}"cwd":"/work/repo","home":"/root/.cfg","t":"ééé ✓ ${index} /work/repository"}`);
      }
      const input = `${lines.join("\n")}\n{"last":"/work/repo"`;
      await writeFile(join(directory, "in.jsonl"), input);
      await relocateFile(join(directory, "in.jsonl"), join(directory, "out.jsonl"), pairs, "json");
      const rewrite = createPathRewriter(pairs);
      const expected = input
        .split("\n")
        .map((line) => rewriteJsonLine(line, rewrite))
        .join("\n");
      const output = await readFile(join(directory, "out.jsonl"), "utf8");
      expect(output).toBe(expected);
      expect(JSON.parse(output.split("\n")[0]!)).toMatchObject({
        esc: "/srv/new-place/eé",
        cwd: "/srv/new-place",
        home: "/home/agent/.cfg",
      });
      expect(output).toContain("/work/repository");
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
