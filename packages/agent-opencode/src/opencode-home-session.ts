/** The parts of an `opencode export` a restore compares: the session's directory, its update time, its messages. */
export interface OpencodeExport {
  readonly info: { readonly id: string; readonly directory?: unknown; readonly time?: { readonly updated?: unknown } };
  readonly messages: ReadonlyArray<{ readonly info?: { readonly id?: unknown } }>;
}

/**
 * Whether a restore must delete the copy of the session a shared home already holds before importing.
 * opencode's import keeps an existing session row and adds only the messages it lacks (and registers the
 * workspace's project, without which a run there does not start); a run moves the session to its directory.
 * So a copy that has every captured message, changed after the capture (continued outside Outpost), or is an
 * earlier state is imported over. One that went another way before the capture (messages the capture lacks)
 * is replaced: merged, the continuation would see both branches.
 */
export function replacesHomeCopy(home: OpencodeExport, captured: OpencodeExport, capturedAt: string): boolean {
  const held = ids(home);
  const wanted = ids(captured);
  if ([...wanted].every((id) => held.has(id))) return false;
  const updated = home.info.time?.updated;
  if (typeof updated === "number" && updated > Date.parse(capturedAt)) return false;
  return ![...held].every((id) => wanted.has(id));
}

function ids(session: OpencodeExport): Set<unknown> {
  return new Set(session.messages.map((message) => message.info?.id));
}

/**
 * `sh` arguments that run `opencode export <id>` only when the home has opencode data (`<data>/opencode`): a
 * fresh home (a new container) answers at once instead of starting opencode to say the session is not there.
 */
export function exportWhenData(dataDirectory: string, executable: string, id: string): string[] {
  return ["-c", 'test -d "$1" || exit 3; exec "$2" export "$3"', "sh", dataDirectory, executable, id];
}
