import { createHash } from "node:crypto";
import type { AgentHomeFile } from "@outpost/core";

/** Variable naming the settings file the CLI reads last (its "system" settings, which outrank the user's). */
export const GEMINI_SETTINGS_VARIABLE = "GEMINI_CLI_SYSTEM_SETTINGS_PATH";

export interface GeminiSettingsOptions {
  /** `general.maxAttempts` (1–10): attempts of a refused model call; the CLI's default 10 backs off for minutes. */
  readonly maxAttempts?: number;
}

/**
 * The settings as measured offline: API-key auth (which still honours `GOOGLE_GEMINI_BASE_URL`;
 * `gateway` is refused), auto-update, usage statistics and telemetry off, folder trust off (headless runs
 * otherwise stop with "not running in a trusted directory").
 */
export function geminiSettings(options: GeminiSettingsOptions = {}, shared = false): AgentHomeFile {
  const general: Record<string, unknown> = { enableAutoUpdate: false, enableAutoUpdateNotification: false };
  if (options.maxAttempts !== undefined) general["maxAttempts"] = Math.min(10, Math.max(1, Math.floor(options.maxAttempts)));
  const settings = {
    general,
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
  };
  const content = `${JSON.stringify(settings, null, 2)}\n`;
  // A home of the lease's own takes the user settings file. A shared home (the user's) never does: there a file
  // of Outpost's, named by its content so leases sharing the home never rewrite each other's, is read as the
  // CLI's system settings (GEMINI_SETTINGS_VARIABLE), which outrank the user's. The CLI skips a system settings
  // file below a folder writable by others (such as /tmp), so a shared home must not lie under one.
  if (!shared) return { path: ".gemini/settings.json", content };
  const digest = createHash("sha256").update(content).digest("hex").slice(0, 16);
  return { path: `.outpost/agents/gemini/settings-${digest}.json`, content };
}
