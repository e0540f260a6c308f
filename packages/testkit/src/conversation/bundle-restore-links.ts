import { posix } from "node:path";
import { refusedOrDone } from "./expect-refused.js";
import { changeSandboxFiles, listSandboxTree } from "./sandbox-files.js";
import { cliRoot, withBundleCase, type DescribeSessionBundleProfileOptions } from "./bundle-suite-context.js";

/**
 * A target home where the CLI home, a folder on the way or the destination itself is a symbolic link to a
 * folder outside: restore is refused with an OutpostError, or it writes nothing through the link.
 */
export async function bundleRestoreThroughLinks(options: DescribeSessionBundleProfileOptions): Promise<void> {
  const { store, profile } = options;
  await withBundleCase(options, async ({ pair, id }) => {
    const { source, target } = pair;
    await store.capture(id, source.context());
    const record = await store.locate(id, source.lease.root, source.context().home);
    const destination = store.destination(id, target.lease, record.file);
    const root = cliRoot(profile, target.lease);
    const below = posix.relative(root, destination).split("/");
    const folders = [root, ...below.map((_, index) => posix.join(root, ...below.slice(0, index + 1)))];
    const outside = posix.join(target.lease.home, ".outpost-kit-outside");
    for (const folder of folders) {
      await changeSandboxFiles(target.lease, [
        { kind: "remove", path: root },
        { kind: "remove", path: outside },
        { kind: "write", path: posix.join(outside, "kept.txt"), text: "kept\n" },
        { kind: "symlink", path: folder, target: outside },
      ]);
      const what = `restore where ${folder} is a symbolic link out of the CLI home`;
      await refusedOrDone(what, () => store.restore(record, target.context()));
      const written = (await listSandboxTree(target.lease, outside)).map((entry) => entry.path).filter((path) => path !== "kept.txt");
      if (written.length > 0) throw new Error(`${what} wrote through the link: ${written.join(", ")}`);
    }
  });
}
