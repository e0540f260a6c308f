import type { SessionBundleProfile } from "@outpost/core";
import { COMMON_CREDENTIAL_FILES, anyOf, credentialFiles } from "@outpost/conversations";

/**
 * Never captured from a Kimi session folder (which is captured whole): the common credential names plus
 * where Kimi keeps its OAuth tokens and API keys (`credentials/`, `config.toml`).
 */
export const KIMI_CREDENTIAL_FILES = credentialFiles([...COMMON_CREDENTIAL_FILES, "kimi-code.json", "oauth.json", "config.toml"]);

/**
 * Kimi Code keeps sessions under `$KIMI_CODE_HOME` or `~/.kimi-code`, in `sessions/<bucket>/<id>/`, where the
 * bucket is `wd_<slug>_<first 12 hex of sha256(normalized cwd)>`. A session needs `state.json` (version 2,
 * its `id` equal to the folder name, a `cwd`, an `agents` object) and `agents/main/wire.jsonl`. Logs, tasks,
 * cron, notify, lock and credential files are not captured. Built from the published description: no Kimi CLI can be
 * installed where this was written.
 */
export const kimiSessionProfile: SessionBundleProfile = {
  specificationVersion: "v1",
  format: "kimi",
  root: { variable: "KIMI_CODE_HOME", directory: ".kimi-code" },
  sessions: "sessions",
  buckets: true,
  include: /^.+$/,
  exclude: anyOf(/^(logs|tasks|cron|notify)(\/|$)|\.lock$/, KIMI_CREDENTIAL_FILES),
  required: ["state.json", "agents/main/wire.jsonl"],
  // Every agent's wire (sub-agents included) records paths.
  relocated: ["state.json", "agents"],
  validate(files, id) {
    let state: { version?: unknown; id?: unknown; cwd?: unknown; agents?: unknown };
    try {
      state = JSON.parse(files.text("state.json") ?? "") as typeof state;
    } catch {
      return "state.json is not valid JSON";
    }
    if (state.version !== 2) return `state.json version ${String(state.version)} is not supported (expected 2)`;
    if (state.id !== id) return `state.json names session ${String(state.id)}, not ${id}`;
    if (typeof state.cwd !== "string") return "state.json has no cwd";
    if (!state.agents || typeof state.agents !== "object" || Array.isArray(state.agents)) return "state.json has no agents object";
    return undefined;
  },
  bucket(cwd, helpers) {
    const normalized = helpers.normalize(cwd);
    const slug =
      helpers
        .basename(normalized)
        .toLowerCase()
        .replace(/[^a-z0-9._-]/g, "")
        .slice(0, 40) || "workspace";
    return `wd_${slug}_${helpers.sha256(normalized).slice(0, 12)}`;
  },
  relocate(path, text, relocation) {
    if (path !== "state.json") return relocation.rewrite(text);
    // Every recorded path (each agent's homedir included) moves with the workspace and home; cwd is set
    // outright, since the CLI resolves the session's workspace from it.
    const state = JSON.parse(relocation.rewrite(text)) as Record<string, unknown>;
    return `${JSON.stringify({ ...state, cwd: relocation.to.workspace }, null, 2)}\n`;
  },
};
