import type { RecordedCommit, RecordedIdentity } from "@outpost/core";

/** The tree of an empty commit: the parent of a root commit's patch. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** The text of a git commit object built from recorded fields; its hash is the commit id. */
export function commitObject(commit: Pick<RecordedCommit, "tree" | "parents" | "author" | "committer" | "message">): string {
  const person = (identity: RecordedIdentity): string => `${identity.name} <${identity.email}> ${identity.date}`;
  return [
    `tree ${commit.tree}`,
    ...commit.parents.map((parent) => `parent ${parent}`),
    `author ${person(commit.author)}`,
    `committer ${person(commit.committer)}`,
    "",
    commit.message,
  ].join("\n");
}

/** Reads the fields of a commit object; undefined when it has a header a rebuild would not reproduce. */
export function parseCommitObject(text: string): Omit<RecordedCommit, "id" | "patch"> | undefined {
  const split = text.indexOf("\n\n");
  if (split < 0) return undefined;
  const headers = text.slice(0, split).split("\n");
  const message = text.slice(split + 2);
  let tree: string | undefined;
  const parents: string[] = [];
  let author: RecordedIdentity | undefined;
  let committer: RecordedIdentity | undefined;
  for (const header of headers) {
    const space = header.indexOf(" ");
    const [name, value] = [header.slice(0, space), header.slice(space + 1)];
    if (name === "tree" && !tree) tree = value;
    else if (name === "parent") parents.push(value);
    else if (name === "author" && !author) author = identityOf(value);
    else if (name === "committer" && !committer) committer = identityOf(value);
    // gpgsig, encoding, mergetag…: the commit cannot be rebuilt byte for byte.
    else return undefined;
  }
  if (!tree || !author || !committer) return undefined;
  return { tree, parents, author, committer, message };
}

function identityOf(value: string): RecordedIdentity | undefined {
  const match = /^([^<>\n]*) <([^<>\n]*)> (\d+ [+-]\d{4})$/.exec(value);
  return match ? { name: match[1]!, email: match[2]!, date: match[3]! } : undefined;
}
