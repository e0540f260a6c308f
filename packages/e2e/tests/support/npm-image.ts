import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The test image plus the host's npm (as in node images: node and npm, no agent CLI), built once per base image
 * and npm release with no registry: `outpost-test-npm:<hash>`.
 */
export function imageWithNpm(base: string): string {
  const baseId = execFileSync("docker", ["image", "inspect", "--format", "{{.Id}}", base], { encoding: "utf8" }).trim();
  const npm = join(execFileSync("npm", ["root", "--global"], { encoding: "utf8" }).trim(), "npm");
  const version = (JSON.parse(readFileSync(join(npm, "package.json"), "utf8")) as { version: string }).version;
  const tag = `outpost-test-npm:${createHash("sha256").update(`${baseId} npm ${version}`).digest("hex").slice(0, 12)}`;
  if (spawnSync("docker", ["image", "inspect", tag], { stdio: "ignore" }).status === 0) return tag;
  const context = mkdtempSync(join(tmpdir(), "outpost-npm-image-"));
  try {
    cpSync(npm, join(context, "npm"), { recursive: true, verbatimSymlinks: true });
    writeFileSync(
      join(context, "Dockerfile"),
      [
        `FROM ${baseId}`,
        "COPY npm /usr/local/lib/node_modules/npm",
        "RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx",
        "",
      ].join("\n"),
    );
    execFileSync("docker", ["build", "--quiet", "--network", "none", "-t", tag, context], { stdio: ["ignore", "ignore", "pipe"] });
    return tag;
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}
