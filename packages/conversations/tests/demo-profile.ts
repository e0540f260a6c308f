import type { SessionBundleProfile } from "@outpost/core";

/** A small directory-per-session profile that exercises every engine feature. */
export const demoProfile: SessionBundleProfile = {
  specificationVersion: "v1",
  format: "demo",
  root: { variable: "DEMO_CLI_HOME", directory: ".demo" },
  sessions: "sessions",
  include: /^(state\.json|log\.jsonl|blob\.bin|notes(\/[^/]+)?)$/,
  exclude: /\.lock$/,
  required: ["state.json", "log.jsonl"],
  relocated: ["state.json", "log.jsonl", "notes/readme.md"],
  validate(files) {
    const state = JSON.parse(files.text("state.json") ?? "{}") as { version?: number };
    return state.version === 2 ? undefined : `state.json version ${String(state.version)} is not supported`;
  },
  relocate(path, text, relocation) {
    if (path !== "state.json") return relocation.rewrite(text);
    const state = JSON.parse(text) as Record<string, unknown>;
    return `${JSON.stringify({ ...state, cwd: relocation.to.workspace, restoredFrom: relocation.from.workspace })}\n`;
  },
};

/** The same layout grouped in buckets named after the workspace. */
export const bucketedProfile: SessionBundleProfile = {
  ...demoProfile,
  format: "demo-buckets",
  buckets: true,
  bucket: (cwd, helpers) => `wd_${helpers.basename(cwd)}_${helpers.sha256(helpers.normalize(cwd)).slice(0, 12)}`,
};
