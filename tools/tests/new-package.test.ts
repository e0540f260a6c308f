import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// `npm run new` is tested by generating each kind into a scratch copy of the repository's shape: the package
// must build with the repository's TypeScript settings, and its conformance test must run the kit and fail
// until the plugin is implemented.
const repository = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const generator = join(repository, "tools/new-package/new-package.mjs");
const tsxLoader = pathToFileURL(join(repository, "node_modules/tsx/dist/loader.mjs")).href;
const scratch = mkdtempSync(join(tmpdir(), "outpost-new-package-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function scratchRepository(): string {
  mkdirSync(join(scratch, "tools"), { recursive: true });
  for (const file of ["tsconfig.base.json", "vitest.shared.ts", "tools/test-private-tmpdir.ts", "package.json", "LICENSE"])
    copyFileSync(join(repository, file), join(scratch, file));
  mkdirSync(join(scratch, "packages/core"), { recursive: true });
  copyFileSync(join(repository, "packages/core/package.json"), join(scratch, "packages/core/package.json"));
  // Every installed package, with our own pointing at the repository's (absolute links: the scratch is elsewhere).
  mkdirSync(join(scratch, "node_modules/@outpost"), { recursive: true });
  for (const entry of readdirSync(join(repository, "node_modules"))) {
    if (entry !== "@outpost") symlinkSync(join(repository, "node_modules", entry), join(scratch, "node_modules", entry));
  }
  for (const name of ["core", "testkit", "conversations", "plugin-utils"])
    symlinkSync(join(repository, "packages", name), join(scratch, "node_modules/@outpost", name));
  return scratch;
}
const root = scratchRepository();

function generate(...args: string[]) {
  return spawnSync(process.execPath, [generator, ...args, "--root", root], { encoding: "utf8" });
}

describe("npm run new", () => {
  it.each([
    ["provider", "my-cloud", "provider-my-cloud", "myCloudProvider"],
    ["transport", "tape", "transport-tape", "tapeTransport"],
    ["agent", "parrot", "agent-parrot", "parrotAgent"],
  ])(
    "%s %s builds, has a README and core as a peer, and its conformance test fails until implemented",
    (kind, name, folder, factory) => {
      const created = generate(kind, name);
      expect(created.status, created.stderr).toBe(0);
      const directory = join(root, "packages", folder);
      const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
        name: string;
        peerDependencies: Record<string, string>;
        repository: { directory: string };
        engines: { node: string };
      };
      expect(manifest.name).toBe(`@outpost/${folder}`);
      // Published as every package is: LICENSE, repository folder, Node versions.
      expect(readFileSync(join(directory, "LICENSE"), "utf8")).toBe(readFileSync(join(repository, "LICENSE"), "utf8"));
      expect(manifest.repository.directory).toBe(`packages/${folder}`);
      expect(manifest.engines.node).toMatch(/^>=\d/);
      expect(manifest.peerDependencies["@outpost/core"]).toMatch(/^\^\d/);
      expect(readFileSync(join(directory, "README.md"), "utf8")).toContain(factory);

      const build = spawnSync(
        process.execPath,
        [join(repository, "node_modules/typescript/bin/tsc"), "-p", join(directory, "tsconfig.lib.json")],
        { encoding: "utf8" },
      );
      expect(build.status, build.stdout + build.stderr).toBe(0);
      expect(existsSync(join(directory, "dist/index.js"))).toBe(true);
      const typecheck = spawnSync(
        process.execPath,
        [join(repository, "node_modules/typescript/bin/tsc"), "-p", join(directory, "tsconfig.json")],
        { encoding: "utf8" },
      );
      expect(typecheck.status, typecheck.stdout + typecheck.stderr).toBe(0);

      const conformance = spawnSync(
        process.execPath,
        [join(repository, "node_modules/vitest/vitest.mjs"), "run", "--root", directory, "--config", join(directory, "vitest.config.ts")],
        {
          encoding: "utf8",
          cwd: directory,
          env: { ...process.env, CI: "", FORCE_COLOR: "0", NO_COLOR: "1" },
          timeout: 120_000,
        },
      );
      const output = conformance.stdout + conformance.stderr;
      expect(conformance.status, output).not.toBe(0);
      expect(output).toContain("is not implemented yet");

      // Installed beside the project (a link in its node_modules), the CLI lists it without a change.
      if (kind === "transport") return;
      symlinkSync(directory, join(root, "node_modules/@outpost", folder));
      const listed = spawnSync(
        process.execPath,
        ["--conditions=outpost-source", "--import", tsxLoader, join(repository, "packages/cli/src/bin.ts"), `${kind}s`],
        { encoding: "utf8", cwd: root, timeout: 60_000 },
      );
      expect(listed.status, listed.stderr).toBe(0);
      expect(listed.stdout.split("\n")).toContain(`${name}\t@outpost/${folder}`);
    },
    180_000,
  );

  it("refuses an existing package, a bad name and an unknown kind, with the usage", () => {
    expect(generate("provider", "my-cloud").stderr).toContain("exists already");
    const badName = generate("agent", "Not_A_Name");
    expect(badName.status).toBe(2);
    expect(badName.stderr).toContain("is not a package name");
    const badKind = generate("database", "x");
    expect(badKind.status).toBe(2);
    expect(badKind.stderr).toContain("choose provider, agent or transport");
    expect(badKind.stderr).toContain("Usage: npm run new");
    const help = spawnSync(process.execPath, [generator, "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: npm run new");
  });
});
