// What a package's changelog may say, shared by the renderer (which applies it) and tools/check-release.mjs
// (which checks the rendered text). CommonJS because Nx loads changelog renderers with require().
"use strict";

// A scope naming a family of packages (`fix(agents): …`) belongs to each package of that family.
const FAMILIES = { agents: "agent-", providers: "provider-", transports: "transport-", queues: "queue-" };

// Scopes of the repository's own tooling, never of a published package.
const REPOSITORY_SCOPES = new Set(["tools", "ci", "e2e", "release"]);

// Notes for the team, not for users: review rounds, seed numbers, reference pages, bare chores.
const INTERNAL_PARENTHETICAL = /\s*\((?:see )?(?:reference page|seed|issue) [^)]*\)/gi;
const INTERNAL_NOTE = /\b(?:review mends?|seed [0-9a-f]{3,}|reference page \d+)\b|^(?:lint|format|formatting|typo|wip)\.?$/i;

// A squashed subject holds a second conventional header: `fix(a): x; test(b): y`.
const SECOND_HEADER = /;\s+(?=[a-z]+(?:\([^)]*\))?!?:\s)/;
const HEADER = /^([a-z]+)(?:\(([^)]*)\))?(!)?:\s*([\s\S]*)$/;

/** The names a scope lists: `dispatch,provider-docker` → ["dispatch", "provider-docker"]. */
function scopeNames(scope) {
  return (scope ?? "")
    .split(/[,\s]+/)
    .map((name) => name.trim())
    .filter(Boolean);
}

/** The package folder a scope word names: `agent-codex`, or its short name `codex`. */
function packageNamed(name, folders) {
  return folders.find((folder) => folder === name || folder.replace(/^(agent|provider|transport|queue)-/, "") === name);
}

/**
 * Whether an entry with this scope belongs in `folder`'s changelog. No scope, or a topic that is no package
 * (`transfers`), stays: Nx picked the commit because it touched the package's files. A scope naming only other
 * packages (or families the package is not in, or the repository's tooling) is not this package's entry.
 */
function belongsTo(scope, folder, folders) {
  const names = scopeNames(scope);
  if (names.length === 0) return true;
  return names.some((name) => {
    if (REPOSITORY_SCOPES.has(name)) return false;
    const named = packageNamed(name, folders);
    if (named !== undefined) return named === folder;
    const family = FAMILIES[name];
    if (family !== undefined) return folder.startsWith(family);
    return true;
  });
}

/** A scope or description that shows a squashed subject was split at the wrong parenthesis. */
function isMangled(scope, description) {
  return /[():]/.test(scope ?? "") || SECOND_HEADER.test(description ?? "");
}

/** The description without internal references, or undefined when the entry is an internal note. */
function publicDescription(description) {
  const [first, ...rest] = description.split("\n");
  const cleaned = first.replace(INTERNAL_PARENTHETICAL, "").trim();
  if (cleaned === "" || INTERNAL_NOTE.test(cleaned)) return undefined;
  return [cleaned, ...rest].join("\n");
}

/** One entry per conventional header of a squashed subject, each with its own type and scope. */
function splitSquashed(change) {
  const subject = `${change.type}${change.scope ? `(${change.scope})` : ""}${change.isBreaking ? "!" : ""}: ${change.description}`;
  if (!isMangled(change.scope, change.description)) return [change];
  return subject.split(SECOND_HEADER).flatMap((part) => {
    const header = HEADER.exec(part.trim());
    if (header === null) return [];
    const [, type, scope = "", bang, description] = header;
    return [{ ...change, type, scope, description: description.trim(), isBreaking: change.isBreaking || bang === "!" }];
  });
}

module.exports = { FAMILIES, belongsTo, isMangled, publicDescription, splitSquashed, scopeNames, INTERNAL_NOTE };
