import type { AgentAdapter } from "@outpost/core";
export function createAgent(): AgentAdapter;
export const SHELL_AGENT_LINE: string;
