import type { SessionBundleProfile } from "@outpost/core";
import { COMMON_CREDENTIAL_FILES, anyOf, credentialFiles } from "@outpost/conversations";

/**
 * Never captured from a Copilot session folder, even below `files/` or `research/` where the agent's own
 * files land: the common credential names plus the token files GitHub's Copilot tools keep.
 */
export const COPILOT_CREDENTIAL_FILES = credentialFiles([...COMMON_CREDENTIAL_FILES, "hosts.json", "apps.json", "copilot-token.json"]);

/**
 * GitHub Copilot CLI keeps each session in `session-state/<id>/` under `$COPILOT_HOME` or `~/.copilot`.
 * `workspace.yaml` must point at the restored workspace (otherwise the CLI silently keeps working in the old
 * directory); `rewind-file-snapshots/index.json` stores each path twice, once as hex-encoded bytes, and keys
 * each file by the first 32 hex of the path's sha256.
 * Lock files and credential files are never captured; `session-store.db` is an index the CLI rebuilds.
 */
export const copilotSessionProfile: SessionBundleProfile = {
  specificationVersion: "v1",
  format: "copilot",
  root: { variable: "COPILOT_HOME", directory: ".copilot" },
  sessions: "session-state",
  include: /^(events\.jsonl|workspace\.yaml|plan\.md|checkpoints(\/.+)?|rewind-file-snapshots(\/.+)?|files(\/.+)?|research(\/.+)?)$/,
  exclude: anyOf(/(^|\/)[^/]*\.lock$/, COPILOT_CREDENTIAL_FILES),
  required: ["events.jsonl", "workspace.yaml"],
  relocated: ["events.jsonl", "workspace.yaml", "rewind-file-snapshots/index.json", "checkpoints/index.md", "plan.md"],
  validate(files, id) {
    const yaml = files.text("workspace.yaml") ?? "";
    const recorded = /^id:\s*["']?([^"'\s]+)["']?\s*$/m.exec(yaml)?.[1];
    if (recorded !== undefined && recorded !== id) return `workspace.yaml belongs to session ${recorded}, not ${id}`;
    if (!/^cwd:\s*\S/m.test(yaml)) return "workspace.yaml has no cwd, so the session cannot be moved to another workspace";
    return undefined;
  },
  relocate(path, text, relocation) {
    if (path !== "rewind-file-snapshots/index.json") return relocation.rewrite(text);
    const hexOf = (value: string) => Array.from(new TextEncoder().encode(value), (byte) => byte.toString(16).padStart(2, "0")).join("");
    const textOf = (hex: string) => new TextDecoder().decode(new Uint8Array((hex.match(/../g) ?? []).map((pair) => parseInt(pair, 16))));
    const visit = (value: unknown): unknown => {
      if (typeof value === "string") return relocation.rewrite(value);
      if (Array.isArray(value)) return value.map(visit);
      if (value === null || typeof value !== "object") return value;
      const record = value as Record<string, unknown>;
      const result: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(record)) {
        // Snapshot entries are keyed by the first 32 hex of sha256(path): the key moves with the path.
        const path = inner !== null && typeof inner === "object" ? (inner as { path?: unknown }).path : undefined;
        const keyedByPath = typeof path === "string" && key === relocation.helpers.sha256(path).slice(0, 32);
        result[keyedByPath ? relocation.helpers.sha256(relocation.rewrite(path)).slice(0, 32) : key] = visit(inner);
      }
      if (record.encoding === "unix-bytes" && typeof record.data === "string" && /^([0-9a-f]{2})*$/i.test(record.data)) {
        result.data = hexOf(relocation.rewrite(textOf(record.data)));
      }
      return result;
    };
    return `${JSON.stringify(visit(JSON.parse(text)), null, 2)}${text.endsWith("\n") ? "\n" : ""}`;
  },
};
