import type { OutpostConfig } from "./config-schema.js";

/** The config keys and the flag each one sets a default for. */
export const CONFIG_FLAGS = {
  agent: "agent",
  provider: "provider",
  model: "model",
  branch: "branch",
  image: "image",
  network: "network",
  passes: "passes",
  "deadline-ms": "deadlineMs",
  "idle-ms": "idleMs",
} as const satisfies Record<Exclude<keyof OutpostConfig, "$schema">, string>;
