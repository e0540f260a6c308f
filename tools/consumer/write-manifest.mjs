// Writes the scratch project's package.json: the packed tarballs, the plugin fixtures (installed from their
// folders), vitest and the agent CLIs at the versions the repository pins. Nothing else of the monorepo.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [repo, tarballs, project] = process.argv.slice(2);
const read = (file) => JSON.parse(readFileSync(file, "utf8"));
const root = read(join(repo, "package.json"));
const e2e = read(join(repo, "packages/e2e/package.json"));

// The pinned CLIs are devDependencies of the private e2e package (npm ci put them in the npm cache).
const CLIS = ["@anthropic-ai/claude-code", "@openai/codex", "@github/copilot", "@google/gemini-cli", "opencode-ai", "@opencode-ai/plugin"];
const dependencies = { vitest: root.devDependencies.vitest };
for (const name of CLIS) dependencies[name] = e2e.devDependencies[name];
for (const file of readdirSync(tarballs).filter((name) => name.endsWith(".tgz"))) {
  const name = file.replace(/^outpost-/, "@outpost/").replace(/-\d+\.\d+\.\d+.*\.tgz$/, "");
  dependencies[name] = `file:${join(tarballs, file)}`;
}
for (const name of readdirSync(join(project, "fixtures"))) dependencies[name] = `file:fixtures/${name}`;

const manifest = { name: "outpost-consumer", private: true, type: "module", dependencies };
writeFileSync(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
