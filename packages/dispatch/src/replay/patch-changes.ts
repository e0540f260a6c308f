/** One file a recorded patch changes, as `git fast-import` takes it: the blob the path ends with, or its removal. */
export type FileChange =
  | { readonly kind: "modify"; readonly mode: string; readonly blob: string; readonly path: string }
  | { readonly kind: "delete"; readonly path: string };

const MODE = /^(100644|100755|120000|160000)$/;

/**
 * What a recorded patch (`git diff --full-index --binary`) does to the tree, read from its headers only: for each
 * file, the mode and full blob id it ends with (its `index` line) or its removal. Undefined for anything not read
 * here for certain (a quoted path, a rename or mode change without an `index` line, an unknown header): the replay
 * then rebuilds that turn commit by commit. Nothing here is trusted: git checks the blobs exist and the commit
 * ids they give.
 */
export function patchChanges(patch: string): FileChange[] | undefined {
  const changes: FileChange[] = [];
  const lines = patch.split("\n");
  let position = 0;
  while (position < lines.length && lines[position] === "") position += 1;
  while (position < lines.length) {
    const header = lines[position]!;
    if (!header.startsWith("diff --git ")) return undefined;
    const section: Record<string, string> = {};
    for (position += 1; position < lines.length && !ends(lines[position]!); position += 1) {
      const line = lines[position]!;
      const field = HEADERS.find((name) => line.startsWith(`${name} `));
      if (!field || field in section) return undefined;
      section[field] = line.slice(field.length + 1);
    }
    const change = sectionChanges(header.slice("diff --git ".length), section);
    if (!change) return undefined;
    changes.push(...change);
    // The hunks or binary data: no line of them starts with "diff --git " (hunk lines start with a space, + - or \).
    while (position < lines.length && !lines[position]!.startsWith("diff --git ")) position += 1;
  }
  return changes;
}

const HEADERS = [
  "old mode",
  "new mode",
  "deleted file mode",
  "new file mode",
  "similarity index",
  "dissimilarity index",
  "rename from",
  "rename to",
  "copy from",
  "copy to",
  "index",
];

function ends(line: string): boolean {
  return /^(diff --git |--- |\+\+\+ |@@ |GIT binary patch$|Binary files )/.test(line) || line === "";
}

function sectionChanges(names: string, section: Record<string, string>): FileChange[] | undefined {
  const [from, to] = paths(names, section);
  if (from === undefined || to === undefined) return undefined;
  if (section["deleted file mode"] !== undefined) return [{ kind: "delete", path: from }];
  const index = /^([0-9a-f]{40}|[0-9a-f]{64})\.\.([0-9a-f]{40}|[0-9a-f]{64})(?: (\d{6}))?$/.exec(section.index ?? "");
  const mode = section["new file mode"] ?? section["new mode"] ?? index?.[3];
  if (!index || !mode || !MODE.test(mode) || /^0+$/.test(index[2]!)) return undefined;
  const modify: FileChange = { kind: "modify", mode, blob: index[2]!, path: to };
  return section["rename from"] !== undefined ? [{ kind: "delete", path: from }, modify] : [modify];
}

/** The paths before and after: from the rename or copy lines, else `a/P b/P` (the same path twice, unquoted). */
function paths(names: string, section: Record<string, string>): [string | undefined, string | undefined] {
  const from = section["rename from"] ?? section["copy from"];
  const to = section["rename to"] ?? section["copy to"];
  if (from !== undefined || to !== undefined) return [plain(from), plain(to)];
  const length = (names.length - 5) / 2;
  const path = names.slice(2, 2 + length);
  return names === `a/${path} b/${path}` ? [plain(path), plain(path)] : [undefined, undefined];
}

/**
 * A path git printed unquoted, usable as is in a fast-import line; undefined when quoted or odd (an empty, `.`,
 * `..` or `.git` component: fast-import would stop on some, git refuses the others).
 */
function plain(path: string | undefined): string | undefined {
  if (path === undefined || path.startsWith('"') || /[\n\r\0]/.test(path)) return undefined;
  const odd = path.split("/").some((part) => part === "" || part === "." || part === ".." || part.toLowerCase() === ".git");
  return odd ? undefined : path;
}
