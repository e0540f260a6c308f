#!/usr/bin/env node
// The installed `outpost` command. It lives outside dist/ so npm links it at install time, before any build:
// installed from the registry it runs the built CLI; in a fresh clone of the repository, before
// `npm run build`, it runs the TypeScript sources through tsx instead.
// CommonJS, like the built start it loads (dist/bin.cjs): a CommonJS main starts sooner than an ES module.
"use strict";
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const built = join(__dirname, "../dist/bin.cjs");
const source = join(__dirname, "../src/bin.ts");

if (existsSync(built)) {
  require(built);
} else if (existsSync(source)) {
  let tsx;
  try {
    tsx = require.resolve("tsx");
  } catch {
    process.stderr.write(
      "outpost: the CLI is not built and tsx is not installed. Run `npm run build` (or `npm ci`) at the repository root.\n",
    );
    process.exit(1);
  }
  // Loaded here only: child_process pulls in net and streams, which the built CLI's --help never needs.
  const { spawn } = require("node:child_process");
  const child = spawn(process.execPath, ["--conditions=outpost-source", "--import", tsx, source, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
} else {
  process.stderr.write("outpost: this installation has no dist/bin.cjs. Reinstall @outpost/cli.\n");
  process.exit(1);
}
