import type { Command } from "../commander.js";
import type { ProgramIo } from "../program.js";
import { findPlugins, PLUGIN_KINDS } from "./find-plugins.js";

/**
 * Adds the command groups installed plugins declare in their package.json (`"outpost": { "commands": { "<group>":
 * "<description>" } }`). Each group is a placeholder until used: only then is the plugin imported and its
 * descriptor's commands parsed (help included), so `outpost --help` reads no more than package.json files
 * and loads neither @outpost/core nor any plugin.
 */
export function addPluginCommands(program: Command, io: ProgramIo): void {
  const taken = new Set(program.commands.map((command) => command.name()));
  for (const plugin of PLUGIN_KINDS.flatMap((kind) => findPlugins(kind))) {
    for (const [group, description] of Object.entries(plugin.commands)) {
      if (taken.has(group)) continue;
      taken.add(group);
      program
        .command(group)
        .description(description)
        .helpOption(false)
        .allowUnknownOption()
        .allowExcessArguments()
        .argument("[arguments...]")
        .exitOverride()
        .action(async function (this: Command) {
          const { runGroup } = await import("./run-plugin-group.js");
          io.setExitCode(await runGroup(plugin, group, this.args, io));
        });
    }
  }
}
