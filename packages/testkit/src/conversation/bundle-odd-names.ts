import { posix } from "node:path";
import { refusedOrDone } from "./expect-refused.js";
import { capturedPlaces, inFolder, profileCaptures } from "./bundle-paths.js";
import { changeSandboxFiles, listSandboxTree } from "./sandbox-files.js";
import { withBundleCase, type DescribeSessionBundleProfileOptions } from "./bundle-suite-context.js";

/** Names a session folder may hold that a careless engine turns into options, shell code, other paths, or drops. */
export const ODD_FILE_NAMES: readonly string[] = [
  "-rf",
  "--output=kit",
  "line\nbreak.md",
  "tab\there.md",
  " leading space.md",
  "ünïcødé 名前 🚀.md",
  "back\\slash.md",
  "quote'\"mark.md",
  "$(touch kit-pwned).md",
  "*.md",
  // Every C0 control character, DEL, NEL and the Unicode line and paragraph separators: one rule for all.
  ...Array.from({ length: 32 }, (_, code) => code)
    .filter((code) => code !== 0)
    .concat(0x7f, 0x85, 0x2028, 0x2029)
    .map((code) => `ctl-${code.toString(16).padStart(2, "0")}-${String.fromCharCode(code)}-end.md`),
];

/**
 * Odd names in every place the profile captures new files: capture is refused with an OutpostError, or
 * exactly the names the profile captures are restored, at the same names with the same bytes, and no name
 * was ever run as code.
 */
export async function bundleOddNames(options: DescribeSessionBundleProfileOptions): Promise<void> {
  const { store, profile } = options;
  await withBundleCase(options, async ({ pair, id, session }) => {
    // Where the profile captures new files, and the session folder itself, where it may skip them.
    const folders = [...new Set([capturedPlaces(profile, "kit-name.md")[0] ?? "", ""])];
    const planted = folders.flatMap((folder) => ODD_FILE_NAMES.map((name) => inFolder(folder, name)));
    await changeSandboxFiles(
      pair.source.lease,
      planted.map((path) => ({ kind: "write" as const, path: posix.join(session, path), text: `kit bytes of ${path}\n` })),
    );
    const refusal = await refusedOrDone("capture with odd file names", () => store.capture(id, pair.source.context()));
    if (!refusal) {
      const record = await store.locate(id, pair.source.lease.root, pair.source.context().home);
      await store.restore(record, pair.target.context());
      const restored = new Map(
        (await listSandboxTree(pair.target.lease, store.destination(id, pair.target.lease, record.file))).map((entry) => [
          entry.path,
          entry,
        ]),
      );
      for (const path of planted) {
        const entry = restored.get(path);
        const captured = profileCaptures(profile, path);
        if (captured && (entry?.kind !== "file" || Buffer.from(entry.data ?? "", "base64").toString("utf8") !== `kit bytes of ${path}\n`))
          throw new Error(`${JSON.stringify(path)} is captured by the profile but was not restored with its bytes`);
        if (!captured && entry) throw new Error(`${JSON.stringify(path)} is not captured by the profile, yet it was restored`);
      }
    }
    for (const lease of [pair.source.lease, pair.target.lease]) {
      for (const root of [lease.home, lease.root]) {
        const pwned = (await listSandboxTree(lease, root)).filter((entry) => entry.path.endsWith("kit-pwned"));
        if (pwned.length > 0) throw new Error(`a file name was run as shell code: ${pwned.map((entry) => entry.path).join(", ")}`);
      }
    }
  });
}
