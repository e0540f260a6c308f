/**
 * What every git command the engine runs on the host is given, so that it never executes anything a
 * sandbox could have written into a repository: hooks, fsmonitor, external diff and textconv programs,
 * ssh or askpass commands, and transports other than local files. Command-line configuration (`-c`)
 * outranks every config file, and git hands it down to the git processes it starts itself.
 *
 * `diff.external` cannot be unset from the command line: the engine passes `--no-ext-diff --no-textconv`
 * to the one diff it runs. What cannot be switched off by name (filter drivers, `include.path`) is kept
 * out of reach instead: the sandbox never gets write access to the host's git directory (see
 * docs/architecture.md, "Git and the sandbox").
 */
export const HARDENED_GIT_CONFIG: Readonly<Record<string, string>> = Object.freeze({
  // Not a directory, so no hook is ever found.
  "core.hooksPath": "/dev/null",
  "core.fsmonitor": "false",
  "core.untrackedCache": "false",
  "core.sshCommand": "false",
  "core.askPass": "false",
  "core.pager": "cat",
  "core.editor": "false",
  "sequence.editor": "false",
  "credential.helper": "",
  "protocol.allow": "never",
  "protocol.file.allow": "always",
  // Objects fetched from a sandbox are checked before they enter the host repository.
  "fetch.fsckObjects": "true",
  "transfer.fsckObjects": "true",
  "receive.fsckObjects": "true",
  "gc.auto": "0",
  "maintenance.auto": "false",
});

/**
 * The environment: stable output, never a prompt, and none of the inherited variables that would point
 * git at another repository or another program.
 */
export const HARDENED_GIT_VARIABLES: Readonly<Record<string, string | undefined>> = Object.freeze({
  LC_ALL: "C",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_PAGER: "cat",
  GIT_ASKPASS: "false",
  SSH_ASKPASS: "false",
  GIT_SSH: undefined,
  GIT_SSH_COMMAND: undefined,
  GIT_EXTERNAL_DIFF: undefined,
  GIT_EDITOR: "false",
  GIT_DIR: undefined,
  GIT_WORK_TREE: undefined,
  GIT_COMMON_DIR: undefined,
  GIT_INDEX_FILE: undefined,
  GIT_OBJECT_DIRECTORY: undefined,
  GIT_ALTERNATE_OBJECT_DIRECTORIES: undefined,
  GIT_NAMESPACE: undefined,
  GIT_CEILING_DIRECTORIES: undefined,
  GIT_CONFIG: undefined,
  GIT_CONFIG_PARAMETERS: undefined,
  GIT_CONFIG_COUNT: undefined,
  GIT_EXEC_PATH: undefined,
  GIT_TEMPLATE_DIR: undefined,
  GIT_PROXY_COMMAND: undefined,
  GIT_ALLOW_PROTOCOL: undefined,
  GIT_PROTOCOL_FROM_USER: "0",
});

/** The `-c` options of one command: the hardening last, so nothing can override it. */
export function hardenedConfigArguments(extra: Readonly<Record<string, string>> = {}): string[] {
  return Object.entries({ ...extra, ...HARDENED_GIT_CONFIG }).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}
