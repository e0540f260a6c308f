import { posix } from "node:path";
import { CREATE_TAR, CREATE_TAR_OF_LIST, EXTRACT_TAR, FRAMED_COMMAND_WRAPPER, KILL_TREE, MANIFEST } from "@outpost/plugin-utils";

// The scripts every command and transfer runs, written once into the lease's scratch at acquire (in the setup
// command): each command then names its script instead of carrying its text, so a re-sync sends its changed
// files and little else (the scripts are a few KB per request).
const SCRIPTS: readonly (readonly [string, string])[] = [
  ["framed", FRAMED_COMMAND_WRAPPER],
  ["kill", KILL_TREE],
  ["manifest", MANIFEST],
  ["extract", EXTRACT_TAR],
  ["create-tar", CREATE_TAR],
  ["create-tar-list", CREATE_TAR_OF_LIST],
];

/** Writes `$3`, `$4`… (name, text pairs) as `<scratch>/<name>.sh`; `$2` is the scratch directory. */
export const INSTALL_SCRIPTS = `scratch=$2
shift 2
while [ $# -gt 1 ]; do printf '%s' "$2" >"$scratch/$1.sh" || exit 1; shift 2; done`;

/** Name and text pairs for INSTALL_SCRIPTS. */
export function scriptArguments(): string[] {
  return SCRIPTS.flatMap(([name, text]) => [name, text]);
}

/** Where the installed copy of `text` is, when it is one of the installed scripts. */
export function installedScript(scratch: string, text: string): string | undefined {
  const found = SCRIPTS.find(([, script]) => script === text);
  return found === undefined ? undefined : posix.join(scratch, `${found[0]}.sh`);
}

/**
 * `argv` with an installed script named by its path: `/bin/sh -c <script> <name> args…` becomes
 * `/bin/sh <path> args…` (the scripts read `$1…`, never `$0`).
 */
export function withInstalledScript(scratch: string, argv: readonly string[]): readonly string[] {
  if (argv[0] !== "/bin/sh" || argv[1] !== "-c" || argv[2] === undefined || argv.length < 4) return argv;
  const path = installedScript(scratch, argv[2]);
  return path === undefined ? argv : ["/bin/sh", path, ...argv.slice(4)];
}
