import type { AgentHomeFile } from "@outpost/core";

export interface GeminiSettingsOptions {
  /** `general.maxAttempts` (1–10): attempts of a refused model call; the CLI's default 10 backs off for minutes. */
  readonly maxAttempts?: number;
}

/**
 * `~/.gemini/settings.json` as measured offline: API-key auth (which still honours `GOOGLE_GEMINI_BASE_URL`;
 * `gateway` is refused), auto-update, usage statistics and telemetry off, folder trust off (headless runs
 * otherwise stop with "not running in a trusted directory").
 */
export function geminiSettings(options: GeminiSettingsOptions = {}): AgentHomeFile {
  const general: Record<string, unknown> = { enableAutoUpdate: false, enableAutoUpdateNotification: false };
  if (options.maxAttempts !== undefined) general["maxAttempts"] = Math.min(10, Math.max(1, Math.floor(options.maxAttempts)));
  const settings = {
    general,
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
  };
  return { path: ".gemini/settings.json", content: `${JSON.stringify(settings, null, 2)}\n` };
}
