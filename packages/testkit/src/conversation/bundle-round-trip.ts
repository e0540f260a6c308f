import { posix } from "node:path";
import type { ListedEntry } from "./sandbox-files.js";
import { listSandboxTree } from "./sandbox-files.js";
import { profileCaptures } from "./bundle-paths.js";
import { cliRoot, withBundleCase, type DescribeSessionBundleProfileOptions } from "./bundle-suite-context.js";
import { RECORDED_ROOT } from "./session-fixture.js";

/**
 * capture → locate → restore into another workspace and home → destination: exactly the files the profile
 * captures come back, those it does not relocate byte for byte, and nothing in the target home names the
 * source sandbox (as text, as a path, or hex-encoded).
 */
export async function bundleRoundTrip(options: DescribeSessionBundleProfileOptions): Promise<void> {
  const { store, profile } = options;
  await withBundleCase(options, async ({ pair, id, session }) => {
    const { source, target } = pair;
    const recorded = files(await listSandboxTree(source.lease, session));
    if (recorded.size === 0) throw new Error(`the fixture has no ${profile.format} session ${id} at ${session} (store.destination)`);
    const record = await store.capture(id, source.context());
    const located = await store.locate(id, source.lease.root, source.context().home);
    if (JSON.stringify(located) !== JSON.stringify(record))
      throw new Error(`locate returned ${JSON.stringify(located)}, capture ${JSON.stringify(record)}`);
    await store.restore(located, target.context());

    const destination = store.destination(id, target.lease, record.file);
    const sessions = posix.join(cliRoot(profile, target.lease), profile.sessions);
    if (!destination.startsWith(`${sessions}/`))
      throw new Error(`destination ${destination} is not under the profile's sessions folder ${sessions}`);
    const restored = files(await listSandboxTree(target.lease, destination));
    const expected = [...recorded.keys()].filter((path) => profileCaptures(profile, path)).sort();
    const actual = [...restored.keys()].sort();
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      throw new Error(`restored ${JSON.stringify(actual)}, but the profile captures ${JSON.stringify(expected)}`);
    for (const path of profile.required) if (!restored.has(path)) throw new Error(`required file ${path} was not restored`);
    const relocated = profile.relocated ?? [];
    for (const [path, data] of restored) {
      const moved = relocated.some((entry) => path === entry || path.startsWith(`${entry}/`));
      if (!moved && data !== recorded.get(path)) throw new Error(`${path} is not relocated, yet it was not restored byte for byte`);
    }

    // A provider may give every lease the same home (a container's /home/...): that path is the target's own.
    const moved = [pair.recording.workspace, pair.recording.home].filter(
      (path) => path !== target.lease.home && path !== target.lease.root,
    );
    const stale = staleMentions([...moved, RECORDED_ROOT]);
    const mentioning = (await listSandboxTree(target.lease, target.lease.home))
      .filter((entry) => stale.some((pattern) => pattern.test(entry.path) || pattern.test(text(entry))))
      .map((entry) => entry.path);
    if (mentioning.length > 0) throw new Error(`restored files still name the source sandbox: ${mentioning.join(", ")}`);
  });
}

/**
 * A source path as a whole path (not the prefix of a longer name such as `repoository`), as text or as
 * hex-encoded bytes.
 */
function staleMentions(paths: readonly string[]): RegExp[] {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const hex = (text: string) => Buffer.from(text).toString("hex");
  return paths.flatMap((path) => [
    new RegExp(`${escape(path)}(?![A-Za-z0-9._-])`),
    new RegExp(`${hex(path)}(?!(${hex(".")}|${hex("_")}|${hex("-")}|3[0-9]|[46][1-9a-f]|[57][0-9a]))`, "i"),
  ]);
}

function files(entries: readonly ListedEntry[]): Map<string, string> {
  return new Map(entries.filter((entry) => entry.kind === "file").map((entry) => [entry.path, entry.data ?? ""]));
}

function text(entry: ListedEntry): string {
  return entry.data === undefined ? "" : Buffer.from(entry.data, "base64").toString("utf8");
}
