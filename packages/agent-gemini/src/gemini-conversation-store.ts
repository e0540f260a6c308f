import { createHash } from "node:crypto";
import { posix } from "node:path";
import { transcriptStore, type PortableConversationStore, type TranscriptStoreOptions } from "@outpost/conversations";

export type GeminiConversationStoreOptions = TranscriptStoreOptions;

const PROJECTS = "projects.json";

/** Gemini CLI's project short name for a root it has not seen: the slug of its last segment. */
export function geminiProjectSlug(root: string): string {
  const base = posix.basename(posix.resolve(root)) || "project";
  return (
    base
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "-")
      .replace(/-+/g, "-")
      .replace(/^-|-$/g, "") || "project"
  );
}

/**
 * The short name Gemini CLI uses for `root`: the one `projects.json` already maps it to, otherwise its slug,
 * suffixed `-1`, `-2`… while another project holds it (as the CLI's registry does).
 */
export function geminiShortName(root: string, projectsJson: string | null): string {
  const projects = parseProjects(projectsJson);
  const normalized = posix.resolve(root);
  const existing = projects[normalized];
  if (typeof existing === "string" && /^[a-z0-9][a-z0-9-]*$/.test(existing)) return existing;
  const taken = new Set(Object.values(projects));
  const slug = geminiProjectSlug(normalized);
  for (let counter = 0; ; counter += 1) {
    const candidate = counter === 0 ? slug : `${slug}-${counter}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Gemini CLI conversations: `<home>/.gemini/tmp/<short>/chats/session-<time>-<id8>.jsonl`. Restore puts the
 * chat under the short name of the sandbox workspace, registers it in `projects.json`, writes the
 * `.project_root` markers and rewrites `projectHash` (sha256 of the root). On a home several workspaces share,
 * capture takes the current workspace's copy (by that hash), not another workspace's newer one.
 */
export function geminiConversationStore(options: GeminiConversationStoreOptions = {}): PortableConversationStore {
  return transcriptStore(
    {
      format: "gemini",
      // GEMINI_CLI_HOME replaces the user's home: the CLI keeps its files in $GEMINI_CLI_HOME/.gemini.
      root: { variable: "GEMINI_CLI_HOME", directory: ".gemini", underVariable: ".gemini" },
      sessions: "tmp",
      transcriptPattern: (id) => `^[^/]+/chats/session-[^/]+-${id.slice(0, 8).replace(/[^A-Za-z0-9_-]/g, "")}\\.jsonl$`,
      firstLineField: "sessionId",
      // A resumed session also starts a stub named after the current minute (metadata and the history as it
      // was): in a later minute than the transcript's, two files hold the id; the one appended to is newest.
      severalMatches: "newest",
      // On your own home each workspace the conversation visited keeps a copy under its project folder, its
      // first line naming the project by hash (restore rewrites it): the current workspace's is continued.
      workspaceFirstLine: (workspace) => ({ field: "projectHash", value: sha256(workspace) }),
      probes: [PROJECTS],
      destination: ({ original, workspace, probes }) =>
        `${geminiShortName(workspace, probes[PROJECTS] ?? null)}/chats/${posix.basename(original)}`,
      plan({ origin, workspace, probes, destination }) {
        const short = destination.split("/")[0]!;
        const projects = parseProjects(probes[PROJECTS] ?? null);
        const registry = { ...safeRegistry(probes[PROJECTS] ?? null), projects: { ...projects, [posix.resolve(workspace)]: short } };
        return {
          pairs: [{ from: sha256(origin.workspace), to: sha256(workspace) }],
          writes: [
            { path: PROJECTS, text: `${JSON.stringify(registry, null, 2)}\n` },
            { path: `tmp/${short}/.project_root`, text: workspace },
            { path: `history/${short}/.project_root`, text: workspace },
          ],
        };
      },
    },
    // Your chats follow you across checkouts, as the CLI keeps them: under your home by default.
    { defaultHome: "user", ...options },
  );
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function safeRegistry(text: string | null): Record<string, unknown> {
  try {
    const value = JSON.parse(text ?? "{}") as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function parseProjects(text: string | null): Record<string, string> {
  const projects = safeRegistry(text).projects;
  if (!projects || typeof projects !== "object" || Array.isArray(projects)) return {};
  const result: Record<string, string> = {};
  for (const [root, short] of Object.entries(projects)) if (typeof short === "string") result[root] = short;
  return result;
}
