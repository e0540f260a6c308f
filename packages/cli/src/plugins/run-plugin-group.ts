import { OutpostError, type PluginCommand, type PluginCommandHost, type PluginDescriptor } from "@outpost/core";
import { agentDescriptor, agentOptions } from "../agents/load-agent.js";
import { Command } from "../commander.js";
import { shortUsageErrors } from "../short-usage.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import type { ProgramIo } from "../program.js";
import { findPlugins, type InstalledPlugin } from "./find-plugins.js";
import { installedPlugin } from "./installed-plugin.js";
import { loadDescriptor } from "./load-descriptor.js";

/** Runs `outpost <group> …` for a plugin's command group: imports the plugin and parses its commands. */
export async function runGroup(plugin: InstalledPlugin, group: string, words: readonly string[], io: ProgramIo): Promise<number> {
  let exitCode: number = EXIT_CODES.success;
  const descriptor = (await loadDescriptor(plugin)) as PluginDescriptor & { commands?: readonly PluginCommand[] };
  const commands = (descriptor.commands ?? []).filter((command) => command.path[0] === group);
  const program = new Command("outpost")
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
  for (const command of commands) {
    parsedCommand(program, command).action(async function (this: Command) {
      exitCode = await runCommand(command, { arguments: this.args, options: this.opts() }, io);
    });
  }
  shortUsageErrors(program);
  await program.parseAsync([group, ...words], { from: "user" });
  return exitCode;
}

/** The commander command for a plugin command: groups made on the way, options and arguments as described. */
function parsedCommand(program: Command, command: PluginCommand): Command {
  let parent = program;
  for (const word of command.path) {
    parent = parent.commands.find((existing) => existing.name() === word) ?? parent.command(word).exitOverride();
  }
  parent.description(command.description).showHelpAfterError(true);
  for (const argument of command.arguments ?? []) {
    const name = `${argument.name}${argument.variadic ? "..." : ""}`;
    parent.argument(argument.required ? `<${name}>` : `[${name}]`, argument.description);
  }
  for (const option of command.options ?? []) {
    const long = option.name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    const flags = `${option.short ? `-${option.short}, ` : ""}--${long}${option.value ? ` <${option.value}>` : ""}`;
    const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
    if (option.required && option.repeatable) parent.requiredOption(flags, option.description, collect);
    else if (option.required) parent.requiredOption(flags, option.description, option.default);
    else if (option.repeatable) parent.option(flags, option.description, collect);
    else parent.option(flags, option.description, option.default);
  }
  return parent;
}

async function runCommand(command: PluginCommand, input: Parameters<PluginCommand["run"]>[0], io: ProgramIo): Promise<number> {
  try {
    return (await command.run(input, commandHost(io))) ?? EXIT_CODES.success;
  } catch (caught) {
    const error = OutpostError.isInstance(caught)
      ? caught
      : new OutpostError("process", `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}.`, { cause: caught });
    if (input.options.json === true)
      io.stdout.write(`${JSON.stringify({ type: "error", code: error.code, message: error.message, details: error.details })}\n`);
    else io.stderr.write(`outpost: ${error.code}: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
}

function commandHost(io: ProgramIo): PluginCommandHost {
  return {
    stdout: io.stdout,
    stderr: io.stderr,
    agent: agentDescriptor,
    transport: (name) => loadDescriptor(installedPlugin("transport", name)),
    plugins: async () => {
      const loaded: PluginDescriptor[] = [];
      for (const plugin of [...findPlugins("agent"), ...findPlugins("provider")]) loaded.push(await loadDescriptor(plugin));
      return loaded;
    },
    agentOptions: (descriptor) => agentOptions(descriptor, { name: descriptor.name }),
  };
}
