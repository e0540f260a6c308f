import type { SessionBundleRelocation } from "@outpost/core";
import { lib } from "../sandbox/sandbox-lib.js";
import { bundleProblem } from "./bundle-checks.js";
import { bundleFiles } from "./bundle-files.js";
import { callHook, type ProfileHooks } from "./profile-hooks.js";
import type { SerializedPattern, SessionBundle, SessionBundleEntry } from "./session-bundle.js";

// These programs run inside the sandbox (dist/sandbox-programs.cjs); the profile's hooks come with them.

interface BundleLocation {
  readonly format: string;
  readonly id: string;
  readonly home: string;
  readonly root: { readonly variable?: string; readonly directory: string };
  readonly sessions: string;
  readonly buckets: boolean;
  readonly include: SerializedPattern;
  readonly exclude?: SerializedPattern;
  readonly required: readonly string[];
  readonly maxBytes: number;
  readonly maxFiles: number;
}

export interface CaptureBundleInput extends BundleLocation {
  readonly workspace: string;
}

/** Reads one session folder into a bundle file in the sandbox's temporary folder; returns its path. */
export function captureBundleProgram(input: CaptureBundleInput, hooks: ProfileHooks): { file: string; size: number } {
  const { fs, path, fail } = lib;
  /**
   * A home shared by workspaces keeps a copy of the session per workspace bucket: the current workspace's
   * is the one the turn continued, else the one written strictly last.
   */
  const currentBucket = (buckets: readonly string[]): string => {
    const own = hooks.bucket ? callHook(hooks, "bucket", () => hooks.bucket!(input.workspace, lib.helpers)) : undefined;
    if (own !== undefined && buckets.includes(own)) return own;
    const written = (name: string) => lib.lstat(path.join(sessions, name, input.id, input.required[0]!))?.mtimeMs ?? 0;
    const times = buckets.map((name) => ({ name, at: written(name) })).sort((left, right) => right.at - left.at);
    if (times[0]!.at > times[1]!.at) return times[0]!.name;
    throw fail(
      "session",
      `${what} is in ${buckets.length} buckets (${buckets.join(", ")}) written at the same moment: which one the CLI continued cannot be told. ` +
        "Run the turn again; its capture takes the copy that turn writes.",
      { buckets },
    );
  };
  const what = `${input.format} session ${input.id}`;
  const cliRoot = lib.cliRoot(input.home, input.root);
  const base = lib.trustedBase(input.home, cliRoot);
  const sessions = path.join(cliRoot, input.sessions);
  const missingOnTheWay = lib.assertNoLinkBelow(base, sessions, `capture ${what}`);
  let bucket: string | null = null;
  let folder = path.join(sessions, input.id);
  if (input.buckets) {
    const entries = !missingOnTheWay && lib.lstat(sessions)?.isDirectory() ? fs.readdirSync(sessions, { withFileTypes: true }) : [];
    const holding = entries.filter((entry) => lib.lstat(path.join(sessions, entry.name, input.id)) !== undefined);
    const linked = holding.filter((entry) => entry.isSymbolicLink()).map((entry) => entry.name);
    if (linked.length > 0) {
      throw fail(
        "workspace",
        `Refused to capture ${what}: its bucket ${path.join(sessions, linked[0]!)} is a symbolic link, and Outpost never follows links in a CLI home. Replace it by a real folder.`,
        { path: path.join(sessions, linked[0]!) },
      );
    }
    const buckets = holding.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    bucket = buckets.length > 1 ? currentBucket(buckets) : (buckets[0] ?? null);
    folder = bucket === null ? folder : path.join(sessions, bucket, input.id);
  }
  const stat = lib.lstat(folder);
  if (!stat || (input.buckets && bucket === null)) {
    throw fail("session", `No ${what} in the sandbox under ${sessions}. Check the id and that the agent saved its session.`, {
      id: input.id,
      absent: true,
    });
  }
  if (stat.isSymbolicLink()) {
    throw fail(
      "workspace",
      `Refused to capture ${what}: ${folder} is a symbolic link, and Outpost never follows links in a CLI home. Replace it by a real folder.`,
      { path: folder },
    );
  }
  if (!stat.isDirectory()) {
    throw fail("workspace", `Refused to capture ${what}: ${folder} is a file where the session folder should be. Remove it.`, {
      path: folder,
    });
  }
  const include = new RegExp(input.include.source, input.include.flags);
  const exclude = input.exclude ? new RegExp(input.exclude.source, input.exclude.flags) : undefined;
  const walked = lib.walk(folder, {
    accept: (relative) => include.test(relative) && !(exclude && exclude.test(relative)),
    maxBytes: input.maxBytes,
    maxFiles: input.maxFiles,
    what,
  });
  const present = new Set(walked.map((file) => file.path));
  const missing = input.required.filter((required) => !present.has(required));
  if (missing.length > 0) {
    throw fail(
      "session",
      `Refused to capture ${what}: it is incomplete, ${missing.join(", ")} missing. Capture after the agent has finished its turn.`,
      { missing },
    );
  }
  const files: SessionBundleEntry[] = [];
  const texts: Record<string, string> = {};
  for (const file of walked) {
    const bytes = lib.readStable(path.join(folder, file.path), file, what);
    const text = bytes.toString("utf8");
    const utf8 = Buffer.byteLength(text) === bytes.length && Buffer.from(text, "utf8").equals(bytes);
    texts[file.path] = text;
    files.push({ path: file.path, mode: file.mode, encoding: utf8 ? "utf8" : "base64", data: utf8 ? text : bytes.toString("base64") });
  }
  if (hooks.validate) {
    const problem = callHook(hooks, "validate", () => hooks.validate!(bundleFiles(texts), input.id));
    if (typeof problem === "string") {
      throw fail(
        "session",
        `Refused to capture ${what}: ${problem}. This session uses something the ${input.format} profile does not support.`,
        { problem },
      );
    }
  }
  const bundle: SessionBundle = {
    outpost: "session-bundle",
    version: 1,
    format: input.format,
    id: input.id,
    bucket,
    origin: { workspace: input.workspace, home: input.home },
    capturedAt: new Date().toISOString(),
    files,
  };
  // Under the lease home: a transfer may only name paths under the lease root or home (core's resolveSandboxPath).
  const staging = path.join(input.home, ".outpost-staging");
  // A link planted at the staging folder must not carry the copy out of the home.
  lib.makeFolders(input.home, staging, `capture ${what}`);
  const directory = fs.mkdtempSync(path.join(staging, "outpost-bundle-"));
  const file = path.join(directory, "bundle.json");
  const text = JSON.stringify(bundle);
  fs.writeFileSync(file, text, { mode: 0o600 });
  return { file, size: Buffer.byteLength(text) };
}

export interface RestoreBundleInput extends BundleLocation {
  /** Sandbox folder holding the uploaded `bundle.json`; removed when done. */
  readonly upload: string;
  readonly relocated: readonly string[];
  readonly to: { readonly workspace: string; readonly home: string };
  /** Leave a session already at the destination as it is (a live home: host placement). */
  readonly keepPresent: boolean;
  /** CLI-home-relative index file the profile's `index` hook updates. */
  readonly indexFile?: string;
}

/** Builds the session beside its destination from the uploaded bundle, then swaps it in. */
export function restoreBundleProgram(input: RestoreBundleInput, hooks: ProfileHooks): { destination: string; kept?: true } {
  const { fs, path, fail } = lib;
  const what = `${input.format} session ${input.id}`;
  try {
    let bundle: SessionBundle;
    try {
      bundle = JSON.parse(fs.readFileSync(path.join(input.upload, "bundle.json"), "utf8")) as SessionBundle;
    } catch (error) {
      throw fail("session", `The bundle of ${what} is corrupt: ${(error as Error).message}. Capture it again.`);
    }
    const problem = bundleProblem(bundle, input);
    if (problem) throw fail("session", `The bundle of ${what} is unusable: ${problem}. Capture it again.`);
    const present = new Set(bundle.files.map((file) => file.path));
    const missing = input.required.filter((required) => !present.has(required));
    if (missing.length > 0)
      throw fail("session", `The bundle of ${what} is incomplete: ${missing.join(", ")} missing. Capture it again after a full turn.`, {
        missing,
      });
    const sessions = path.join(lib.cliRoot(input.home, input.root), input.sessions);
    lib.assertNoLinkBelow(lib.trustedBase(input.home, lib.cliRoot(input.home, input.root)), sessions, `restore ${what}`);
    let bucket: string | undefined;
    let destination = path.join(sessions, input.id);
    if (input.buckets) {
      bucket = callHook(hooks, "bucket", () => hooks.bucket!(input.to.workspace, lib.helpers));
      if (typeof bucket !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(bucket) || bucket.includes("..")) {
        throw fail(
          "configuration",
          `The bucket hook of the ${input.format} profile returned ${JSON.stringify(bucket)}, which is not a single safe folder name. Fix the profile.`,
        );
      }
      // Copies under other buckets (other workspaces on a shared home) stay: the CLI finds each by its workspace.
      destination = path.join(sessions, bucket, input.id);
    }
    // A restore that a crash interrupted is finished or undone first, whatever happens to this one.
    const base = lib.trustedBase(input.home, lib.cliRoot(input.home, input.root));
    lib.makeFolders(base, path.dirname(destination), `restore ${what}`);
    const journal = path.join(path.dirname(destination), `.${input.id}.outpost-replace.json`);
    lib.recoverReplacement(journal, base);
    // A live home (host placement) already holding the session is where the CLI continues from when that copy
    // is current: the last capture came from it, or it changed since. One the session moved on from is replaced.
    const presentAt = input.keepPresent ? lib.lstat(path.join(destination, input.required[0]!))?.mtimeMs : undefined;
    const sameOrigin = bundle.origin.workspace === input.to.workspace && bundle.origin.home === input.to.home;
    if (input.keepPresent && lib.lstat(destination) && (sameOrigin || presentAt === undefined || presentAt > Date.parse(bundle.capturedAt)))
      return { destination, kept: true };
    const rewrite = lib.createPathRewriter([
      { from: bundle.origin.workspace, to: input.to.workspace },
      { from: bundle.origin.home, to: input.to.home },
    ]);
    const relocation: SessionBundleRelocation = Object.freeze({
      id: input.id,
      cwd: input.to.workspace,
      target: destination,
      from: Object.freeze({ ...bundle.origin }),
      to: Object.freeze({ ...input.to }),
      ...(bucket === undefined ? {} : { bucket }),
      rewrite,
      helpers: lib.helpers,
    });
    // A relocated entry names a file, or a folder whose files are all relocated.
    const isRelocated = (file: string) => input.relocated.some((entry) => file === entry || file.startsWith(`${entry}/`));
    // Every relocated text is computed before anything is written: a throwing hook leaves no trace.
    const contents = bundle.files.map((file) => {
      if (!isRelocated(file.path)) return file.encoding === "utf8" ? Buffer.from(file.data, "utf8") : Buffer.from(file.data, "base64");
      const text = file.encoding === "utf8" ? file.data : Buffer.from(file.data, "base64").toString("utf8");
      const result = hooks.relocate ? callHook(hooks, "relocate", () => hooks.relocate!(file.path, text, relocation)) : rewrite(text);
      if (typeof result !== "string")
        throw fail(
          "configuration",
          `The relocate hook of the ${input.format} profile returned no text for ${file.path}. Make it return the rewritten text.`,
        );
      return Buffer.from(result, "utf8");
    });
    // The index (e.g. the CLI's list of workspaces) is computed before anything is written, like the files.
    const indexUpdate = (file: string) => {
      const cliRoot = lib.cliRoot(input.home, input.root);
      const target = path.resolve(cliRoot, file);
      if (!target.startsWith(`${cliRoot}/`))
        throw fail("configuration", `The ${input.format} profile's indexFile ${file} leaves the CLI home. Fix the profile.`);
      const missing = lib.assertNoLinkBelow(base, target, `restore ${what}`);
      const found = missing ? undefined : lib.lstat(target);
      if (found && (!found.isFile() || found.nlink > 1))
        throw fail("workspace", `Refused to update ${target}: it is not a regular file of its own. Replace it by a real file.`, {
          path: target,
        });
      const before = found ? fs.readFileSync(target, "utf8") : undefined;
      const text = callHook(hooks, "index", () => hooks.index!(before, relocation));
      if (typeof text !== "string")
        throw fail(
          "configuration",
          `The index hook of the ${input.format} profile returned no text. Make it return the index file's text.`,
        );
      return { target, text };
    };
    const index = input.indexFile === undefined || !hooks.index ? undefined : indexUpdate(input.indexFile);
    const staged = lib.stagingName(destination);
    try {
      fs.mkdirSync(staged, { mode: 0o700 });
      bundle.files.forEach((file, index) => {
        const target = path.join(staged, file.path);
        lib.makeFolders(staged, path.dirname(target), `restore ${what}`);
        fs.writeFileSync(target, contents[index]!, { mode: file.mode & 0o777, flag: "wx" });
      });
      // The session this replaces is kept in the CLI home's .outpost-recovery, under a name of its own.
      const stamp = `${new Date().toISOString().replace(/[:.]/g, "-")}-${lib.crypto.randomBytes(3).toString("hex")}`;
      const recovery = path.join(
        lib.cliRoot(input.home, input.root),
        ".outpost-recovery",
        `${bucket ? `${bucket}-` : ""}${input.id}-${stamp}`,
      );
      const replacements: { staged: string; target: string; recovery?: string }[] = [{ staged, target: destination, recovery }];
      if (index) {
        lib.makeFolders(base, path.dirname(index.target), `restore ${what}`);
        const sibling = lib.stagingName(index.target);
        fs.writeFileSync(sibling, index.text, { flag: "wx", mode: 0o600 });
        replacements.push({ staged: sibling, target: index.target });
      }
      lib.replaceTogether(journal, base, replacements);
    } catch (error) {
      fs.rmSync(staged, { recursive: true, force: true });
      throw error;
    }
    return { destination };
  } finally {
    fs.rmSync(input.upload, { recursive: true, force: true });
    try {
      fs.rmdirSync(path.dirname(input.upload));
    } catch {
      // Another restore is using the staging folder.
    }
  }
}

/** Removes a captured bundle's folder, and the staging folder under home once nothing else uses it. */
export function removeCapturedBundleProgram(input: { readonly file: string }): true {
  const { fs, path } = lib;
  fs.rmSync(path.dirname(input.file), { recursive: true, force: true });
  try {
    fs.rmdirSync(path.dirname(path.dirname(input.file)));
  } catch {
    // Another capture or restore is using the staging folder.
  }
  return true;
}
