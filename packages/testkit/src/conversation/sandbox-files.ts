import type { SandboxLease } from "@outpost/core";

/** One change a kit makes to a sandbox's files, or one listing it asks for. Paths are absolute sandbox paths. */
export type SandboxFileStep =
  | { readonly kind: "write"; readonly path: string; readonly text: string }
  | { readonly kind: "append"; readonly path: string; readonly text: string }
  | { readonly kind: "remove"; readonly path: string }
  | { readonly kind: "copy"; readonly from: string; readonly to: string }
  | { readonly kind: "symlink"; readonly path: string; readonly target: string }
  | { readonly kind: "hardlink"; readonly path: string; readonly existing: string }
  | { readonly kind: "fifo"; readonly path: string }
  | { readonly kind: "sparse"; readonly path: string; readonly size: number }
  | { readonly kind: "many"; readonly folder: string; readonly count: number };

/** One entry of a listed tree: `data` is the file's bytes in base64 (regular files only). */
export interface ListedEntry {
  readonly path: string;
  readonly kind: "file" | "directory" | "symlink" | "other";
  readonly data?: string;
}

// Runs in the sandbox with `node -e` (the engines need node there too): only Node built-ins, steps on stdin.
const STEP_PROGRAM = String.raw`
const fs = require("node:fs"), path = require("node:path"), child = require("node:child_process");
const steps = JSON.parse(fs.readFileSync(0, "utf8"));
const parent = (file) => fs.mkdirSync(path.dirname(file), { recursive: true });
const fresh = (file) => { parent(file); fs.rmSync(file, { recursive: true, force: true }); };
for (const step of steps) {
  if (step.kind === "write") { fresh(step.path); fs.writeFileSync(step.path, step.text); }
  else if (step.kind === "append") fs.appendFileSync(step.path, step.text);
  else if (step.kind === "remove") fs.rmSync(step.path, { recursive: true, force: true });
  else if (step.kind === "copy") { fresh(step.to); fs.cpSync(step.from, step.to, { recursive: true, verbatimSymlinks: true }); }
  else if (step.kind === "symlink") { fresh(step.path); fs.symlinkSync(step.target, step.path); }
  else if (step.kind === "hardlink") { fresh(step.path); fs.linkSync(step.existing, step.path); }
  else if (step.kind === "fifo") { fresh(step.path); child.execFileSync("mkfifo", ["--", step.path]); }
  else if (step.kind === "sparse") { fresh(step.path); fs.writeFileSync(step.path, ""); fs.truncateSync(step.path, step.size); }
  else if (step.kind === "many") {
    fs.mkdirSync(step.folder, { recursive: true });
    for (let index = 0; index < step.count; index += 1) fs.writeFileSync(path.join(step.folder, "kit-many-" + index + ".txt"), "x");
  } else throw new Error("unknown step " + step.kind);
}
`;

const LIST_PROGRAM = String.raw`
const fs = require("node:fs"), path = require("node:path");
const { root } = JSON.parse(fs.readFileSync(0, "utf8"));
const entries = [];
const visit = (absolute, relative) => {
  for (const name of fs.readdirSync(absolute).sort()) {
    const child = path.join(absolute, name), shown = relative === "" ? name : relative + "/" + name;
    const stat = fs.lstatSync(child);
    if (stat.isSymbolicLink()) entries.push({ path: shown, kind: "symlink" });
    else if (stat.isDirectory()) { entries.push({ path: shown, kind: "directory" }); visit(child, shown); }
    else if (stat.isFile()) entries.push({ path: shown, kind: "file", data: fs.readFileSync(child).toString("base64") });
    else entries.push({ path: shown, kind: "other" });
  }
};
if (fs.existsSync(root)) visit(root, "");
process.stdout.write(JSON.stringify(entries));
`;

/** Applies `steps` inside the sandbox, through the lease, so the kit works on any provider. */
export async function changeSandboxFiles(lease: SandboxLease, steps: readonly SandboxFileStep[]): Promise<void> {
  await runNode(lease, STEP_PROGRAM, JSON.stringify(steps), "change files in the sandbox");
}

/** Every entry under `root` in the sandbox (nothing when it is absent), without following links. */
export async function listSandboxTree(lease: SandboxLease, root: string): Promise<ListedEntry[]> {
  return JSON.parse(await runNode(lease, LIST_PROGRAM, JSON.stringify({ root }), `list ${root} in the sandbox`)) as ListedEntry[];
}

async function runNode(lease: SandboxLease, program: string, input: string, what: string): Promise<string> {
  const result = await lease.invoke({
    executable: "node",
    arguments: ["-e", program],
    stdin: input,
    directory: lease.home,
    deadlineMs: 120_000,
    retain: 256 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`the kit could not ${what} (status ${result.status}): ${result.stderr.slice(-600)}`);
  return result.stdout;
}
