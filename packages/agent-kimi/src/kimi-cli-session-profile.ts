import type { SessionBundleProfile } from "@outpost/core";
import { anyOf } from "@outpost/conversations";
import { KIMI_CREDENTIAL_FILES } from "./kimi-session-profile.js";

/**
 * The older Kimi CLI layout (`kimi-cli`, which `@moonshot-ai/kimi-agent-sdk` still reads): sessions under
 * `$KIMI_SHARE_DIR` or `~/.kimi`, in `sessions/<md5 of the work dir>/<id>/` with `context.jsonl` (the history
 * the CLI resumes from), `wire.jsonl`, an optional `state.json` and `subagents/`. The CLI finds a session only
 * through its work dir's entry in `kimi.json` (`work_dirs`), which a restore adds. Built from the CLI's public
 * source (session.py, metadata.py): no Kimi CLI can be installed where this was written.
 */
export const kimiCliSessionProfile: SessionBundleProfile = {
  specificationVersion: "v1",
  format: "kimi-cli",
  root: { variable: "KIMI_SHARE_DIR", directory: ".kimi" },
  sessions: "sessions",
  buckets: true,
  include: /^.+$/,
  exclude: anyOf(/\.lock$/, KIMI_CREDENTIAL_FILES),
  required: ["context.jsonl"],
  relocated: ["context.jsonl", "wire.jsonl", "state.json", "subagents"],
  validate(files) {
    const first = (files.text("context.jsonl") ?? "").split("\n").find((line) => line.trim() !== "");
    if (first === undefined) return undefined;
    try {
      const record = JSON.parse(first) as unknown;
      return record !== null && typeof record === "object" && !Array.isArray(record)
        ? undefined
        : "context.jsonl does not hold JSON records";
    } catch {
      return "context.jsonl does not hold JSON lines";
    }
  },
  // `md5(str(work_dir))` of the canonical work dir, as metadata.py names the folder.
  bucket: (cwd, helpers) => helpers.md5(helpers.normalize(cwd)),
  indexFile: "kimi.json",
  index(text, relocation) {
    const metadata = (text === undefined || text.trim() === "" ? {} : JSON.parse(text)) as Record<string, unknown>;
    const workspace = relocation.to.workspace;
    const listed = Array.isArray(metadata["work_dirs"]) ? (metadata["work_dirs"] as Record<string, unknown>[]) : [];
    const others = listed.filter((entry) => entry["path"] !== workspace);
    const own = listed.find((entry) => entry["path"] === workspace) ?? { path: workspace };
    const sessions = (metadata["session_to_workdir"] ?? {}) as Record<string, unknown>;
    const next = {
      ...metadata,
      work_dirs: [...others, { ...own, path: workspace, last_session_id: relocation.id }],
      session_to_workdir: { ...sessions, [relocation.id]: workspace },
    };
    return `${JSON.stringify(next, null, 2)}\n`;
  },
};
