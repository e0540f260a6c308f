#!/usr/bin/env node
// Kept tiny: `outpost --help` must start fast, so everything heavy is imported only by the command that needs it.
import { main } from "./main.js";

// A closed pipe (`outpost --help | head -c 10`) is not a crash: what is left to write is dropped.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "EIO") throw error;
  });
}

process.exitCode = await main(process.argv);
