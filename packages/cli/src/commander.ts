import { createRequire } from "node:module";
import type * as Commander from "commander";

// commander is CommonJS: required directly it loads in about half the time it takes through ESM's CommonJS
// translation (its esm.mjs wrapper), which `outpost --help` pays on every start.
const commander = createRequire(import.meta.url)("commander") as typeof Commander;

export const { Command, CommanderError, InvalidArgumentError } = commander;
export type Command = Commander.Command;
export type CommanderError = Commander.CommanderError;
