import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
// @ts-expect-error plain ESM module without types
import { checkArchitecture } from "../architecture.mjs";

const scratches: string[] = [];

function scratch(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  scratches.push(directory);
  return directory;
}

afterEach(() => {
  for (const directory of scratches.splice(0)) rmSync(directory, { recursive: true, force: true });
});

type Files = Record<string, string>;

function monorepo(packages: Record<string, { src?: Files; tests?: Files; bench?: Files; manifest?: object }>): string {
  const root = scratch("outpost-arch-");
  for (const [folder, { manifest = {}, ...folders }] of Object.entries(packages)) {
    mkdirSync(join(root, "packages", folder, "src"), { recursive: true });
    writeFileSync(join(root, "packages", folder, "package.json"), JSON.stringify({ name: `@outpost/${folder}`, ...manifest }));
    for (const [name, files] of Object.entries(folders)) {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(join(root, "packages", folder, name, file, ".."), { recursive: true });
        writeFileSync(join(root, "packages", folder, name, file), text);
      }
    }
  }
  return root;
}

describe("architecture check", () => {
  it("passes on the real repository", () => {
    expect(checkArchitecture(resolve(__dirname, "../.."))).toEqual([]);
  });

  it("passes on a clean tree", () => {
    const root = monorepo({
      core: { src: { "index.ts": 'export * from "./a.js";' } },
      "provider-x": { src: { "index.ts": 'import { OutpostError } from "@outpost/core";' } },
      "agent-y": { src: { "index.ts": 'import { a } from "@outpost/conversations";\nimport type { B } from "@outpost/core";' } },
    });
    expect(checkArchitecture(root)).toEqual([]);
  });

  it("in tests/ and bench/, accepts declared workspace imports and the package's own files", () => {
    const root = monorepo({
      core: {},
      "agent-y": {
        manifest: { devDependencies: { "@outpost/provider-local": "^0.1.0" }, peerDependencies: { "@outpost/core": "^0.1.0" } },
        tests: {
          "a.test.ts":
            'import { localProvider } from "@outpost/provider-local";\nimport "@outpost/core";\nimport "@outpost/agent-y";\nimport "../src/index.js";\nimport "./fixtures/x.js";',
        },
        bench: { "b.bench.ts": 'import "../tests/support.js";' },
      },
    });
    expect(checkArchitecture(root)).toEqual([]);
  });

  it("in tests/ and bench/, catches an undeclared workspace import and reaching into another package", () => {
    const root = monorepo({
      core: {},
      "agent-y": {
        tests: {
          "store.test.ts": 'import { localProvider } from "@outpost/provider-local";',
          "deep/b.test.ts": 'import { fixturePair } from "../../../conversations/tests/fixtures/session-fixture.js";',
        },
        bench: { "x.bench.ts": 'const m = await import("@outpost/testkit/gates");' },
      },
    });
    expect(checkArchitecture(root)).toEqual([
      expect.stringContaining(
        "agent-y/tests/deep/b.test.ts: relative import ../../../conversations/tests/fixtures/session-fixture.js reaches into another package's folder",
      ),
      expect.stringContaining(
        "agent-y/tests/store.test.ts: imports @outpost/provider-local, which packages/agent-y/package.json does not declare",
      ),
      expect.stringContaining("agent-y/bench/x.bench.ts: imports @outpost/testkit, which packages/agent-y/package.json does not declare"),
    ]);
  });

  it("catches a plugin importing another plugin, statically or dynamically", () => {
    const root = monorepo({
      core: {},
      "provider-x": { src: { "index.ts": 'import { dockerProvider } from "@outpost/provider-docker";' } },
      "transport-z": { src: { "lazy.ts": 'const m = await import("@outpost/transport-fs");' } },
    });
    const violations = checkArchitecture(root);
    expect(violations).toHaveLength(2);
    expect(violations[0]).toContain("provider-x/src/index.ts: imports @outpost/provider-docker");
    expect(violations[1]).toContain("transport-z/src/lazy.ts: imports @outpost/transport-fs");
  });

  it("catches core importing anything of ours, core runtime dependencies, and the engine importing a plugin", () => {
    const root = monorepo({
      core: { src: { "index.ts": 'export { x } from "@outpost/testkit";' }, manifest: { dependencies: { lodash: "1" } } },
      dispatch: {
        src: { "index.ts": 'import "@outpost/provider-local";' },
        manifest: { peerDependencies: { "@outpost/agent-claude": "^0.1.0" } },
      },
    });
    const violations = checkArchitecture(root).join("\n");
    expect(violations).toContain("packages/core/src/index.ts: imports @outpost/testkit");
    expect(violations).toContain("packages/core/package.json: must have no runtime dependencies");
    expect(violations).toContain("packages/dispatch/src/index.ts: imports @outpost/provider-local");
    expect(violations).toContain("packages/dispatch/package.json: peerDependencies names @outpost/agent-claude");
  });

  it("refuses the engine any plugin, even lazily or as an optional peer: it finds its default provider by discovery", () => {
    const root = monorepo({
      dispatch: {
        src: { "default.ts": 'const load = () => import("@outpost/provider-docker");' },
        manifest: {
          peerDependencies: { "@outpost/provider-docker": "^0.1.0" },
          peerDependenciesMeta: { "@outpost/provider-docker": { optional: true } },
        },
      },
    });
    const violations = checkArchitecture(root).join("\n");
    expect(violations).toContain("packages/dispatch/src/default.ts: imports @outpost/provider-docker");
    expect(violations).toContain("packages/dispatch/package.json: peerDependencies names @outpost/provider-docker");
    const discovery = monorepo({
      dispatch: { src: { "default.ts": 'import { pluginPackagesIn } from "@outpost/core/plugin-packages";' } },
    });
    expect(checkArchitecture(discovery)).toEqual([]);
  });

  it("catches relative imports that reach into another package and unknown packages", () => {
    const root = monorepo({
      "agent-q": { src: { "index.ts": 'import { x } from "../../provider-local/src/index.js";' } },
      mystery: {},
    });
    const violations = checkArchitecture(root).join("\n");
    expect(violations).toContain("relative import ../../provider-local/src/index.js leaves the package");
    expect(violations).toContain("packages/mystery: no dependency rule covers this package");
  });

  it("the CLI's src names no plugin, by package or short name, in code or text; other packages and the CLI's tests may", () => {
    const root = monorepo({
      "agent-moon": {},
      "provider-local": {},
      "queue-tide": {},
      cli: {
        src: {
          "ok.ts": '// runs in a local folder; the moonlight is fine\nexport const help = "installed agents";',
          "a.ts": 'const plugin = await import("@outpost/agent-moon");',
          "b.ts": "// for Moon, pass --home\nexport const x = 1;",
          "c.ts": 'export const y = "outpost worker (Tide)";',
          "d.ts": 'import "@outpost/provider-local";',
        },
        tests: { "e.test.ts": 'const name = "moon";' },
      },
      e2e: { src: { "f.ts": 'export const name = "moon";' } },
    });
    const violations = checkArchitecture(root).filter((line: string) => line.includes("names the plugin"));
    expect(violations).toEqual([
      expect.stringContaining('packages/cli/src/a.ts:1: names the plugin "@outpost/agent-moon"'),
      expect.stringContaining('packages/cli/src/b.ts:1: names the plugin "Moon"'),
      expect.stringContaining('packages/cli/src/c.ts:1: names the plugin "Tide"'),
      expect.stringContaining('packages/cli/src/d.ts:1: names the plugin "@outpost/provider-local"'),
    ]);
  });

  it("no line over 200 characters in src/, tests/ or bench/, wherever it is", () => {
    const long = `export const text = "${"x".repeat(178)}";`;
    const root = monorepo({
      core: { src: { "ok.ts": `export const text = "${"x".repeat(177)}";` } },
      "agent-y": { src: { "a.ts": `// fine\n${long}` }, tests: { "b.test.ts": long }, bench: { "c.bench.ts": long } },
    });
    expect(checkArchitecture(root)).toEqual([
      expect.stringContaining("packages/agent-y/src/a.ts:2: line of 201 characters"),
      expect.stringContaining("packages/agent-y/tests/b.test.ts:1: line of 201 characters"),
      expect.stringContaining("packages/agent-y/bench/c.bench.ts:1: line of 201 characters"),
    ]);
  });

  it("the command exits non-zero on a deliberate violation", () => {
    const root = monorepo({ "provider-x": { src: { "index.ts": 'import "@outpost/agent-claude";' } } });
    const script = resolve(__dirname, "../check-architecture.mjs");
    const bad = spawnSync(process.execPath, [script, root], { encoding: "utf8" });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("imports @outpost/agent-claude");
    const copy = scratch("outpost-arch-ok-");
    cpSync(join(root, "packages"), join(copy, "packages"), { recursive: true });
    writeFileSync(join(copy, "packages/provider-x/src/index.ts"), 'import "@outpost/core";');
    const good = spawnSync(process.execPath, [script, copy], { encoding: "utf8" });
    expect(good.status).toBe(0);
  });
});
