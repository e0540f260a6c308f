import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// What npm would publish, package by package: the file list of `npm pack --dry-run` and the manifest in it.
// The test run itself reads sources (the outpost-source condition), so only this looks at what users install.
const root = resolve(__dirname, "../..");
const rootLicense = readFileSync(join(root, "LICENSE"), "utf8");
// Entry modules with import-time effects keep no `sideEffects: false`: the CLI's start runs the program, and the
// test kit looks vitest up with a top-level await.
const WITH_SIDE_EFFECTS = new Set(["cli", "testkit"]);

type Manifest = {
  name: string;
  private?: boolean;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  engines?: { node?: string };
  sideEffects?: unknown;
  exports?: Record<string, string | Record<string, string>>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

const folders = readdirSync(join(root, "packages"))
  .filter((folder) => existsSync(join(root, "packages", folder, "package.json")))
  .filter((folder) => !manifestOf(folder).private)
  .sort();

function manifestOf(folder: string): Manifest {
  return JSON.parse(readFileSync(join(root, "packages", folder, "package.json"), "utf8")) as Manifest;
}

// One `npm pack --dry-run` for every workspace: the paths each tarball would hold.
const packed = (() => {
  const missing = folders.filter((folder) => !existsSync(join(root, "packages", folder, "dist")));
  if (missing.length > 0) throw new Error(`packages without dist/ (${missing.join(", ")}): run npm run build first`);
  const output = execFileSync(
    "npm",
    ["pack", "--dry-run", "--json", "--ignore-scripts", ...folders.map((folder) => `-w=packages/${folder}`)],
    {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const reports = JSON.parse(output) as Array<{ name: string; files: Array<{ path: string }> }>;
  return new Map(reports.map((report) => [report.name, new Set(report.files.map((file) => file.path))]));
})();

describe.each(folders)("the published @outpost/%s", (folder) => {
  const manifest = manifestOf(folder);
  const directory = join(root, "packages", folder);
  const files = packed.get(manifest.name) ?? new Set<string>();

  it("carries the MIT LICENSE of the repository", () => {
    expect(files.has("LICENSE")).toBe(true);
    expect(readFileSync(join(directory, "LICENSE"), "utf8")).toBe(rootLicense);
    expect(manifest.license).toBe("MIT");
  });

  it("names its repository folder, the Node versions it runs on, and whether importing it has side effects", () => {
    expect(manifest.repository).toMatchObject({
      type: "git",
      url: expect.stringMatching(/^git\+https:\/\//),
      directory: `packages/${folder}`,
    });
    expect(manifest.engines?.node).toBe(">=20.19");
    if (WITH_SIDE_EFFECTS.has(folder)) expect(manifest.sideEffects).toBeUndefined();
    else expect(manifest.sideEffects).toBe(false);
  });

  it("ships every file its exports map points at, under every condition (outpost-source included)", () => {
    const targets = Object.values(manifest.exports ?? {}).flatMap((entry) => (typeof entry === "string" ? [entry] : Object.values(entry)));
    const absent = targets.map((target) => posix.normalize(target)).filter((target) => !files.has(target));
    expect(absent).toEqual([]);
  });

  // A map that embeds a source's text (the CLI start's inlined commander) needs no file for it.
  it("ships the sources its declaration maps and source maps point at, or embeds them", () => {
    const dangling = [...files]
      .filter((path) => path.endsWith(".map"))
      .flatMap((path) => {
        const map = JSON.parse(readFileSync(join(directory, path), "utf8")) as {
          sourceRoot?: string;
          sources: string[];
          sourcesContent?: Array<string | null>;
        };
        return map.sources
          .filter((_, index) => typeof map.sourcesContent?.[index] !== "string")
          .map((source) => posix.normalize(posix.join(dirname(path), map.sourceRoot ?? "", source)))
          .filter((source) => !files.has(source))
          .map((source) => `${path} → ${source}`);
      });
    expect(dangling).toEqual([]);
  });
});

describe("the published @outpost/cli", () => {
  it("names every plugin it can discover as an optional peer, and the test kit that `outpost demo` loads", () => {
    const manifest = manifestOf("cli");
    const plugins = [
      ...folders.filter((folder) => /^(agent|provider|transport|queue)-/.test(folder)).map((folder) => `@outpost/${folder}`),
      "@outpost/testkit",
    ].sort();
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual(plugins);
    for (const plugin of plugins) expect(manifest.peerDependenciesMeta?.[plugin]?.optional, plugin).toBe(true);
  });
});

describe("the published @outpost/dispatch", () => {
  it("depends on no plugin: its default provider is found through plugin discovery", () => {
    const manifest = manifestOf("dispatch") as Manifest & { dependencies?: Record<string, string> };
    const ours = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})].filter((name) =>
      name.startsWith("@outpost/"),
    );
    expect(ours.sort()).toEqual(["@outpost/core", "@outpost/plugin-utils"]);
  });
});
