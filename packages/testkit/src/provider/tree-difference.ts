import assert from "node:assert/strict";
import type { TreeNode } from "./host-tree.js";

/** Lines naming what differs between two snapshots: entries lost, entries added, kind, mode (octal), content, target. */
export function treeDifferences(actual: readonly TreeNode[], expected: readonly TreeNode[]): string[] {
  const got = new Map(actual.map((node) => [node.path, node]));
  const wanted = new Map(expected.map((node) => [node.path, node]));
  const lines: string[] = [];
  for (const [path, node] of wanted) {
    const other = got.get(path);
    if (other === undefined) {
      lines.push(`lost ${node.kind} ${JSON.stringify(path)}`);
      continue;
    }
    if (other.kind !== node.kind) lines.push(`${JSON.stringify(path)} is a ${other.kind}, expected a ${node.kind}`);
    else if (other.mode !== node.mode) lines.push(`${JSON.stringify(path)} has mode ${octal(other.mode)}, expected ${octal(node.mode)}`);
    if (other.kind === node.kind && other.sha256 !== node.sha256)
      lines.push(
        `${JSON.stringify(path)} has different content (SHA-256 ${other.sha256?.slice(0, 12)}…, expected ${node.sha256?.slice(0, 12)}…)`,
      );
    if (other.kind === node.kind && other.target !== node.target)
      lines.push(`link ${JSON.stringify(path)} points to ${JSON.stringify(other.target)}, expected ${JSON.stringify(node.target)}`);
  }
  for (const [path, node] of got) if (!wanted.has(path)) lines.push(`unexpected ${node.kind} ${JSON.stringify(path)}`);
  return lines;
}

/** Fails with the list of differences when two snapshots differ. */
export function assertSameTree(actual: readonly TreeNode[], expected: readonly TreeNode[], what: string): void {
  const lines = treeDifferences(actual, expected);
  assert.ok(lines.length === 0, `${what}:\n  ${lines.join("\n  ")}`);
}

/** A permission mode as `0751`. */
export function octal(mode: number | undefined): string {
  return mode === undefined ? "none" : `0${(mode & 0o7777).toString(8).padStart(3, "0")}`;
}
