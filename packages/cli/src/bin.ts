#!/usr/bin/env node
// Kept tiny: `outpost --help` must start fast, so everything heavy is imported only by the command that needs it.
import { main } from "./main.js";

process.exitCode = await main(process.argv);
