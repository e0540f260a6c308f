// `outpost init` and `.outpost/config.json` from the built CLI, as a user runs them.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, expect, it } from "vitest";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const command = join(packageRoot, "bin/outpost.cjs");

beforeAll(() => {
  if (!existsSync(join(packageRoot, "dist/init/init-command.js"))) throw new Error("dist is missing: run `npm run build` first.");
});

function outpost(args: string[], cwd: string) {
  return spawnSync(process.execPath, [command, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function checkout(): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-init-"));
  expect(spawnSync("git", ["init", "-q", directory]).status).toBe(0);
  return directory;
}

it("writes .outpost once (config, env example, Dockerfile, .gitignore lines) and overwrites only with --force", () => {
  const repository = checkout();
  const first = outpost(["init", "--agent", "codex"], repository);
  expect(first.status).toBe(0);
  const config = JSON.parse(readFileSync(join(repository, ".outpost/config.json"), "utf8")) as Record<string, unknown>;
  expect(config).toMatchObject({ agent: "codex", branch: "integrate", image: "outpost-agents:latest" });
  expect(readFileSync(join(repository, ".outpost/Dockerfile"), "utf8")).toMatch(/^FROM node:20-bookworm-slim$/m);
  expect(readFileSync(join(repository, ".outpost/Dockerfile"), "utf8")).toMatch(/npm install -g .*@openai\/codex@\d+\.\d+\.\d+/);
  expect(readFileSync(join(repository, ".outpost/.env.example"), "utf8")).toContain("# OPENAI_API_KEY=");
  expect(readFileSync(join(repository, ".gitignore"), "utf8")).toBe(".outpost/.env\n");
  // What init wrote is committable; the variables file is not.
  const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: repository, encoding: "utf8" }).stdout;
  expect(status).toContain(".outpost/config.json");
  expect(status).toContain(".outpost/Dockerfile");
  writeFileSync(join(repository, ".outpost/.env"), "OPENAI_API_KEY=secret\n");
  expect(spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: repository, encoding: "utf8" }).stdout).not.toContain(
    ".env\n",
  );

  expect(outpost(["init", "--agent", "codex"], repository).stdout).not.toMatch(/^(wrote|added|replaced)/m);
  writeFileSync(join(repository, ".outpost/config.json"), '{ "agent": "mine" }\n');
  const again = outpost(["init"], repository);
  expect(again.stdout).toMatch(/^kept\s+\.outpost\/config\.json$/m);
  expect(again.stdout).toContain("--force");
  expect(readFileSync(join(repository, ".outpost/config.json"), "utf8")).toBe('{ "agent": "mine" }\n');
  expect(outpost(["init", "--force"], repository).stdout).toMatch(/^replaced\s+\.outpost\/config\.json$/m);
  expect(readFileSync(join(repository, ".gitignore"), "utf8")).toBe(".outpost/.env\n");
});

it("run takes its defaults from the config, flags win, and run --help says where each default came from", () => {
  const repository = checkout();
  writeFileSync(join(repository, ".gitignore"), "");
  outpost(["init"], repository);
  writeFileSync(join(repository, ".outpost/config.json"), '{\n  "agent": "from-config",\n  "deadline-ms": 90000\n}\n');
  const help = outpost(["run", "--help"], repository);
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/--agent\s+from-config\s+from .*\.outpost\/config\.json/);
  expect(help.stdout).toMatch(/--deadline-ms\s+90000\s+from .*\.outpost\/config\.json/);
  expect(help.stdout).toMatch(/--branch\s+current\s+built in/);
  const configured = outpost(["run", "a brief"], repository);
  expect(configured.status).toBe(2);
  expect(configured.stderr).toContain('Unknown agent "from-config"');
  const flagged = outpost(["run", "--agent", "from-flag", "a brief"], repository);
  expect(flagged.stderr).toContain('Unknown agent "from-flag"');
  // Options were refused before anything was announced.
  expect(flagged.stdout).not.toContain("running");
});

it("an invalid config is refused with the file, the line and the key; a link there is refused as not the host's", () => {
  const repository = checkout();
  outpost(["init"], repository);
  const file = join(repository, ".outpost/config.json");
  writeFileSync(file, '{\n  "agent": "claude",\n  "deadline-ms": "soon",\n  "imagee": "x"\n}\n');
  const invalid = outpost(["run", "a brief"], repository);
  expect(invalid.status).toBe(2);
  expect(invalid.stderr).toContain(`${file}:3: "deadline-ms": expected a number`);
  expect(invalid.stderr).toContain(`${file}:4: "imagee": unknown key`);
  writeFileSync(file, '{\n  "agent": "claude"\n  "branch": "x"\n}\n');
  expect(outpost(["run", "a brief"], repository).stderr).toMatch(new RegExp(`${file}:3: not JSON`));
  unlinkSync(file);
  const elsewhere = join(repository, "elsewhere.json");
  writeFileSync(elsewhere, '{ "agent": "claude" }\n');
  symlinkSync(elsewhere, file);
  const linked = outpost(["run", "a brief"], repository);
  expect(linked.status).toBe(2);
  expect(linked.stderr).toContain("symbolic link");
});

it("usage errors are short and exit 2: the error, the usage line, where to read more", () => {
  const repository = checkout();
  const unknown = outpost(["run", "--no-such-flag", "brief"], repository);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toBe(
    "error: unknown option '--no-such-flag'\nUsage: outpost run [options] <brief>\nRun `outpost run --help` for more.\n",
  );
  const missing = outpost(["run", "--agent", "claude", "--repository", join(repository, "nowhere"), "brief"], repository);
  expect(missing.status).toBe(2);
  expect(missing.stderr).toContain("--repository");
  expect(missing.stdout).toBe("");
  const outside = outpost(["run", "--agent", "claude", "brief"], tmpdir());
  expect(outside.status).toBe(2);
  expect(outside.stderr).toContain("not inside a git checkout");
  const id = outpost(["run", "--agent", "claude", "--continue", "../../etc", "brief"], repository);
  expect(id.status).toBe(2);
  expect(id.stderr).toContain("--continue");
  expect(id.stdout).toBe("");
  const branch = outpost(["run", "--agent", "claude", "--branch", "bad..name", "brief"], repository);
  expect(branch.status).toBe(2);
  expect(branch.stderr).toContain("--branch");
});
