import type { PluginCommand } from "./plugin-command.js";
import type { DESCRIPTOR_SPECIFICATION_VERSION } from "./plugin-descriptor.js";

/**
 * What a queue plugin (dispatches run by workers on other machines) says about itself: a host learns its
 * commands (start a worker, inspect the queue) from here instead of importing the package by name.
 */
export interface QueueDescriptor {
  readonly specificationVersion: typeof DESCRIPTOR_SPECIFICATION_VERSION;
  readonly kind: "queue";
  readonly name: string;
  readonly description: string;
  /** Their groups are listed in the package.json under `"outpost": { "commands" }`. */
  readonly commands: readonly PluginCommand[];
}
