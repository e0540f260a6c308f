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

// Scripts that run through the framed wrapper (transfers): each also gets `<scratch>/<name>`, which runs
// `<name>.sh` through `framed.sh`, so a transfer names one path instead of the wrapper, a shell and the script.
const FRAMED: ReadonlySet<string> = new Set(["manifest", "extract", "create-tar", "create-tar-list"]);

/** `<name>`: `$1` directory and `$2` input for `framed.sh`, the rest for `<name>.sh` (`$0` is its own path). */
function framedShim(name: string): string {
  return `d=$1 i=$2
shift 2
exec /bin/sh "\${0%/*}/framed.sh" "$d" "$i" /bin/sh "\${0%/*}/${name}.sh" "$@"`;
}

/** Writes `$3`, `$4`… (file name, text pairs) as `<scratch>/<file name>`; `$2` is the scratch directory. */
export const INSTALL_SCRIPTS = `scratch=$2
shift 2
while [ $# -gt 1 ]; do printf '%s' "$2" >"$scratch/$1" || exit 1; shift 2; done`;

/** File name and text pairs for INSTALL_SCRIPTS: every script, and a framed shim for each transfer script. */
export function scriptArguments(): string[] {
  return [
    ...SCRIPTS.flatMap(([name, text]) => [`${name}.sh`, text]),
    ...SCRIPTS.filter(([name]) => FRAMED.has(name)).flatMap(([name]) => [name, framedShim(name)]),
  ];
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
function withInstalledScript(scratch: string, argv: readonly string[]): readonly string[] {
  if (argv[0] !== "/bin/sh" || argv[1] !== "-c" || argv[2] === undefined || argv.length < 4) return argv;
  const path = installedScript(scratch, argv[2]);
  return path === undefined ? argv : ["/bin/sh", path, ...argv.slice(4)];
}

/**
 * The arguments of `/bin/sh` that run `argv` in `directory` with `input` through the framed wrapper: a
 * transfer script's shim when `argv` is one (`<shim> <directory> <input> args…`), else the installed wrapper
 * and the command (with an installed script named by its path).
 */
export function framedArguments(scratch: string, directory: string, input: string, argv: readonly string[]): string[] {
  const script = argv[0] === "/bin/sh" && argv[1] === "-c" && argv.length >= 4 ? SCRIPTS.find(([, text]) => text === argv[2]) : undefined;
  if (script !== undefined && FRAMED.has(script[0])) return [posix.join(scratch, script[0]), directory, input, ...argv.slice(4)];
  return [installedScript(scratch, FRAMED_COMMAND_WRAPPER)!, directory, input, ...withInstalledScript(scratch, argv)];
}
