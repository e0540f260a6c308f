import { OutpostError, tailLines } from "@outpost/core";
import { gitScript } from "../git/run-git.js";
import type { SyncBackBudget } from "./sync-back-budget.js";

/**
 * Sizes of what verified work would put on the host, by the objects' uncompressed sizes (`cat-file
 * --batch-check`, which reads headers, not contents): every object the commits bring (a blob of zeros
 * travels as a few kilobytes and inflates to gigabytes: a gzip bomb in git objects), and the files the
 * checkout of the tip writes into the worktree, each path counted (one blob under many names is written
 * many times). One spawn; prints `<object bytes> <files> <file bytes>`.
 */
const MEASURE = `{
  git "$@" rev-list --objects --no-object-names "$OUTPOST_TIP" --not "$OUTPOST_BASELINE" | sed 's/$/ object/'
  git "$@" diff-tree -r --no-renames --no-commit-id "$OUTPOST_BASELINE" "$OUTPOST_TIP" |
    awk '$5 != "D" && ($2 ~ /^10/ || $2 ~ /^12/) { print $4 " file" }'
} | git "$@" cat-file --batch-check='%(objectsize) %(rest)' |
  awk '$2 == "object" { objects += $1 } $2 == "file" { files += 1; bytes += $1 }
    $2 == "missing" { exit 3 } END { printf "%.0f %.0f %.0f\\n", objects, files, bytes }'`;

/**
 * Refuses (code `limit`) verified work whose objects or worktree files are over the sync-back budget
 * (`limits.syncBackBytes`, `limits.syncBackFiles`), before anything is fetched into the host repository.
 * `directory` is the temporary repository holding the work (the host's objects borrowed).
 */
export async function assertWorkObjectsWithinBudget(
  directory: string,
  baseline: string,
  tip: string,
  budget: SyncBackBudget,
  signal?: AbortSignal,
): Promise<void> {
  const measured = await gitScript(directory, MEASURE, {
    what: "Measuring the sandbox's commits",
    variables: { OUTPOST_TIP: tip, OUTPOST_BASELINE: baseline },
    signal,
  });
  const [objects, files, bytes] = measured.stdout.trim().split(" ").map(Number);
  if (measured.status !== 0 || ![objects, files, bytes].every((value) => Number.isSafeInteger(value)))
    throw new OutpostError(
      "workspace",
      `The sandbox's work was refused before the host was touched: its objects could not be measured ` +
        `(exit ${measured.status}: ${tailLines(measured.stderr, 300) || "no output"}). The host repository is unchanged.`,
    );
  const over =
    objects! > budget.bytes
      ? `its objects hold ${objects} bytes uncompressed, over limits.syncBackBytes (${budget.bytes})`
      : bytes! > budget.bytes
        ? `its commits write ${bytes} bytes of files into the worktree, over limits.syncBackBytes (${budget.bytes})`
        : files! > budget.files
          ? `its commits write ${files} files into the worktree, over limits.syncBackFiles (${budget.files})`
          : undefined;
  if (over === undefined) return;
  throw new OutpostError(
    "limit",
    `The sandbox's commits were refused before the host repository was touched: ${over}. ` +
      `Have the agent drop what should not come back from its history, or raise ${over.includes("syncBackFiles") ? "limits.syncBackFiles" : "limits.syncBackBytes"}.`,
    { details: { objectBytes: objects, files, bytes, budget: { ...budget } } },
  );
}
