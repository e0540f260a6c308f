import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

// Setup file: each e2e test file gets its own temporary root, removed when the file ends. Scratch
// repositories, conversation homes, lease homes and the agent CLIs' own temp files (claude-0, cc-socks…)
// all land under it, so an e2e run leaves nothing in /tmp even when a test fails half-way.
// OUTPOST_KEEP_TEMP=1 keeps it, to look at what a failing test left.
const previous = { TMPDIR: process.env.TMPDIR, HOME: process.env.HOME };
const realHome = homedir();
const root = mkdtempSync(join(tmpdir(), "outpost-e2e-file-"));
process.env.TMPDIR = root;
// The local provider's default lease home is the host home: each test file gets a HOME of its own, so the
// real CLIs never write into the account's home and test files running at once never share one. Caches
// (npm, the CLIs' unpacked binaries) stay the account's, so nothing is downloaded or unpacked again.
// Not under /tmp: Gemini CLI skips a settings file below a folder writable by others, as a real home never is.
const homes = join(realHome, ".cache", "outpost-e2e-homes");
mkdirSync(homes, { recursive: true, mode: 0o700 });
const home = mkdtempSync(join(homes, "home-"));
process.env.HOME = home;
process.env.XDG_CACHE_HOME ??= join(realHome, ".cache");
process.env.npm_config_cache ??= join(realHome, ".npm");
process.env.npm_config_userconfig ??= join(realHome, ".npmrc");

afterAll(() => {
  for (const [name, value] of Object.entries(previous)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  if (process.env.OUTPOST_KEEP_TEMP === "1") console.warn(`kept the test file's temporary root ${root} and home ${home}`);
  else for (const folder of [root, home]) rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
});
