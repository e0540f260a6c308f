import { describe, expect, it } from "vitest";
// @ts-expect-error plain ESM module without types
import { findReleaseDefects } from "../release/release-defects.mjs";
// @ts-expect-error plain CommonJS module without types
import rules from "../release/changelog-rules.cjs";

const { belongsTo, splitSquashed, publicDescription } = rules as {
  belongsTo: (scope: string, folder: string, folders: string[]) => boolean;
  splitSquashed: (change: object) => Array<{ type: string; scope: string; description: string }>;
  publicDescription: (description: string) => string | undefined;
};

const folders = ["core", "dispatch", "provider-docker", "agent-claude", "agent-codex", "e2e"];
const workspace = {
  folders,
  runtimeDependencies: (folder: string) => new Set(folder === "core" ? [] : ["@outpost/core"]),
};

/** What `nx release --dry-run --verbose` prints for one package, with the changelog lines given. */
function dryRun(folder: string, changelog: string[], { tag = true } = {}): string {
  const name = `@outpost/${folder}`;
  return [
    ` NX   Running release version for project: ${name}`,
    `${name} ✍️  New version 0.1.1 written to manifest: packages/${folder}/package.json`,
    ` NX   Previewing an entry in packages/${folder}/CHANGELOG.md for ${name}@0.1.1`,
    `CREATE packages/${folder}/CHANGELOG.md [dry-run]`,
    ...["## 0.1.1 (2026-12-07)", "", ...changelog].map((line) => `+ ${line}`),
    " NX   Tagging commit with git",
    ...(tag ? [`git tag --annotate ${name}@0.1.1 --message ${name}@0.1.1`] : []),
  ].join("\n");
}

const clean = [
  "### 🚀 Features",
  "",
  "- **provider-docker:** containers bounded by default",
  "- unscoped change that touched it",
  "",
  "### 🧱 Updated Dependencies",
  "",
  "- Updated @outpost/core to 0.1.1",
];

const unscoped = ["### 🚀 Features", "", "- an unscoped change that touched the package"];

describe("the release check", () => {
  it("passes a release with one clean changelog entry and one tag per package", () => {
    expect(findReleaseDefects(dryRun("provider-docker", clean), workspace)).toEqual([]);
  });

  it("catches entries of other packages, mangled lines, internal notes, empty sections, authors and dev bumps", () => {
    const changelog = [
      "### 🚀 Features",
      "",
      "- **plugin-utils:** this is another package's entry",
      "- **agent-codex:** so is this one",
      "- **provider-docker): a mounted lease refuses a link; test(testkit:** hostile trees",
      "- **provider-docker:** lint",
      "- **provider-docker:** the default home (reference page 002)",
      "",
      "### 🩹 Fixes",
      "",
      "### 🧱 Updated Dependencies",
      "",
      "- Updated @outpost/testkit to 0.1.1",
      "",
      "### ❤️ Thank You",
      "",
      "- Seed 8bb69e42 maintainers",
    ];
    const defects = findReleaseDefects(dryRun("provider-docker", changelog), { ...workspace, folders: [...folders, "plugin-utils"] }).join(
      "\n",
    );
    expect(defects).toContain('an entry of another package "- **plugin-utils:**');
    expect(defects).toContain('an entry of another package "- **agent-codex:**');
    expect(defects).toContain('mangled line "- **provider-docker): a mounted lease');
    expect(defects).toContain('an internal note "- **provider-docker:** lint"');
    expect(defects).toContain('an internal note "- **provider-docker:** the default home (reference page 002)"');
    expect(defects).toContain('empty section "### 🩹 Fixes"');
    expect(defects).toContain("an authors section");
    expect(defects).toContain("@outpost/testkit is no dependency users install");
  });

  it("catches a released package without its tag or changelog, and a changelog of no released package", () => {
    expect(findReleaseDefects(dryRun("dispatch", unscoped, { tag: false }), workspace)).toEqual([
      "@outpost/dispatch@0.1.1: no git tag @outpost/dispatch@0.1.1 would be made",
    ]);
    const withoutChangelog = dryRun("core", []).replace(/ NX {3}Previewing[\s\S]*?(?= NX {3}Tagging)/, "");
    expect(findReleaseDefects(withoutChangelog, workspace)).toContain("@outpost/core@0.1.1: 0 changelog entries, expected 1");
    const stray = `${dryRun("core", unscoped)}\n NX   Previewing an entry in CHANGELOG.md for workspace@0.1.1\n+ - x`;
    expect(findReleaseDefects(stray, workspace)).toContain("CHANGELOG.md: a changelog for workspace, which is no released package");
    expect(findReleaseDefects("", workspace)).toEqual(["the dry run released no package (did nx release fail?)"]);
  });
});

describe("the changelog rules the renderer applies", () => {
  it("keep a package's own, unscoped, family and topic entries; drop other packages' and the tooling's", () => {
    expect(belongsTo("", "agent-claude", folders)).toBe(true);
    expect(belongsTo("agent-claude,agent-codex", "agent-claude", folders)).toBe(true);
    expect(belongsTo("agents", "agent-claude", folders)).toBe(true);
    expect(belongsTo("transfers", "agent-claude", folders)).toBe(true);
    expect(belongsTo("codex", "agent-claude", folders)).toBe(false);
    expect(belongsTo("dispatch", "agent-claude", folders)).toBe(false);
    expect(belongsTo("tools", "agent-claude", folders)).toBe(false);
    expect(belongsTo("providers", "agent-claude", folders)).toBe(false);
  });

  it("split a squashed subject into its conventional headers", () => {
    const change = {
      type: "fix",
      scope: "provider-docker): a link is refused; test(testkit",
      description: "hostile trees",
      isBreaking: false,
    };
    expect(splitSquashed(change)).toEqual([
      { type: "fix", scope: "provider-docker", description: "a link is refused", isBreaking: false },
      { type: "test", scope: "testkit", description: "hostile trees", isBreaking: false },
    ]);
    const plain = { type: "feat", scope: "core", description: "x", isBreaking: false };
    expect(splitSquashed(plain)).toEqual([plain]);
  });

  it("drop internal notes and internal references", () => {
    expect(publicDescription("lint")).toBeUndefined();
    expect(publicDescription("review mends — one path order")).toBeUndefined();
    expect(publicDescription("the home is yours (reference page 002); flags pass settings")).toBe("the home is yours; flags pass settings");
    expect(publicDescription("a real change")).toBe("a real change");
  });
});
