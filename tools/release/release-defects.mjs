// Reads the output of `nx release --dry-run --verbose` and lists what would make a release untrustworthy:
// a released package without its changelog entry or tag, a changelog for something that is not a package,
// entries of other packages, mangled lines, internal notes, empty sections, devDependency bumps.
// Pure (text in, defects out) so tools/tests/check-release.test.ts can prove each defect is caught.
import rules from "./changelog-rules.cjs";

const { belongsTo, isMangled, INTERNAL_NOTE } = rules;

const VERSION_WRITTEN = /^(@outpost\/[\w-]+) .*New version (\S+) written to manifest: packages\/([\w-]+)\/package\.json/;
const PREVIEW = /Previewing an entry in (\S*CHANGELOG\.md) for (\S+)@(\S+)/;
const ENTRY = /^- (?:⚠️\s+)?(?:\*\*(.+?):\*\* )?(.*)$/;
const BUMP = /^- Updated (\S+) to (\S+)$/;

/**
 * @param {string} output what the dry run printed
 * @param {{ folders: string[], runtimeDependencies: (folder: string) => Set<string> }} workspace
 * @returns {string[]} one readable line per defect; empty when the release is clean
 */
export function findReleaseDefects(output, { folders, runtimeDependencies }) {
  const lines = output.split("\n");
  const released = new Map(); // package name → { folder, version }
  for (const line of lines) {
    const match = VERSION_WRITTEN.exec(line);
    if (match) released.set(match[1], { folder: match[3], version: match[2] });
  }
  const defects = [];
  if (released.size === 0) defects.push("the dry run released no package (did nx release fail?)");
  const previews = changelogPreviews(lines);
  for (const [name, { folder, version }] of released) {
    const own = previews.filter((preview) => preview.name === name);
    if (own.length !== 1) defects.push(`${name}@${version}: ${own.length} changelog entries, expected 1`);
    if (!lines.some((line) => line.trim() === `git tag --annotate ${name}@${version} --message ${name}@${version}`))
      defects.push(`${name}@${version}: no git tag ${name}@${version} would be made`);
    for (const preview of own) {
      if (preview.file !== `packages/${folder}/CHANGELOG.md`)
        defects.push(`${name}: its changelog is ${preview.file}, not packages/${folder}/CHANGELOG.md`);
      defects.push(...entryDefects(preview, folder, folders, runtimeDependencies(folder)));
    }
  }
  for (const preview of previews)
    if (!released.has(preview.name)) defects.push(`${preview.file}: a changelog for ${preview.name}, which is no released package`);
  return defects;
}

/** Each `Previewing an entry …` with the `+ ` lines that follow it, without the `+ ` marker. */
function changelogPreviews(lines) {
  const previews = [];
  let current;
  for (const line of lines) {
    const header = PREVIEW.exec(line);
    if (header) {
      current = { file: header[1], name: header[2], version: header[3], lines: [] };
      previews.push(current);
    } else if (current && /^\s*NX\s/.test(line)) current = undefined;
    else if (current && line.startsWith("+")) current.lines.push(line.replace(/^\+ ?/, ""));
  }
  return previews;
}

function entryDefects(preview, folder, folders, installed) {
  const where = `packages/${folder}/CHANGELOG.md`;
  const defects = [];
  preview.lines.forEach((line, index) => {
    if (/^#+\s/.test(line) && /^#+\s|^$/.test(nextContent(preview.lines, index) ?? ""))
      if (!/^#+\s+\d/.test(line)) defects.push(`${where}: empty section "${line}"`);
    if (/thank you/i.test(line)) defects.push(`${where}: an authors section ("${line}")`);
    const bump = BUMP.exec(line);
    if (bump) {
      if (!installed.has(bump[1])) defects.push(`${where}: "${line}" — ${bump[1]} is no dependency users install`);
      return;
    }
    const entry = ENTRY.exec(line);
    if (!entry) return;
    const [, scope, description] = entry;
    if (isMangled(scope, description) || /\*\*/.test(description)) defects.push(`${where}: mangled line "${line}"`);
    else if (!belongsTo(scope, folder, folders)) defects.push(`${where}: an entry of another package "${line}"`);
    if (INTERNAL_NOTE.test(description.trim()) || /\b(?:review mends?|seed \d+|reference page \d+)\b/i.test(line))
      defects.push(`${where}: an internal note "${line}"`);
  });
  return defects;
}

/** The next line with content after `index`, or undefined at the end. */
function nextContent(lines, index) {
  return lines.slice(index + 1).find((line) => line.trim() !== "");
}
