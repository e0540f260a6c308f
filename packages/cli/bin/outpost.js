#!/usr/bin/env node
// The installed `outpost` command. It lives outside dist/ so npm links it at install time, before any build:
// installed from the registry it runs the built CLI; in a fresh clone of the repository, before
// `npm run build`, it runs the TypeScript sources through tsx instead.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const built = new URL("../dist/bin.js", import.meta.url);
const source = new URL("../src/bin.ts", import.meta.url);

if (existsSync(built)) {
  await import(built.href);
} else if (existsSync(source)) {
  let tsx;
  try {
    tsx = createRequire(import.meta.url).resolve("tsx");
  } catch {
    process.stderr.write(
      "outpost: the CLI is not built and tsx is not installed. Run `npm run build` (or `npm ci`) at the repository root.\n",
    );
    process.exit(1);
  }
  // Loaded here only: child_process pulls in net and streams, which the built CLI's --help never needs.
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, ["--conditions=outpost-source", "--import", tsx, fileURLToPath(source), ...process.argv.slice(2)], {
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
  process.stderr.write("outpost: this installation has no dist/bin.js. Reinstall @outpost/cli.\n");
  process.exit(1);
}
