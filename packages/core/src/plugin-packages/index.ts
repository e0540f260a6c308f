// A separate entry (`@outpost/core/plugin-packages`): only Node builtins behind it, so the CLI's start can inline it.
export { PLUGIN_KINDS, nodeModulesAbove, pluginPackagesIn, readPluginPackage } from "./plugin-packages.js";
export type { PluginKind, PluginPackage } from "./plugin-packages.js";
