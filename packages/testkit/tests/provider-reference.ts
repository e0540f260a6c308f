import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutpostError, throwIfAborted } from "@outpost/core";
import type { SandboxLease, SandboxProvider } from "@outpost/core";
import { referenceFileTransfers } from "./reference-file-transfers.js";
import { REFERENCE_MARK, killMarked, run, signalGroup } from "./reference-process.js";
import { referenceTransfers } from "./reference-transfers.js";

/** One deliberate defect per flag, so the kit's tests can prove each check catches it. */
export interface ReferenceFlaws {
  /** Deadline and abort kill only the command's own pid, not its process group. */
  readonly killLeaderOnly?: boolean;
  /** stderr is reported inside stdout. */
  readonly mergeStreams?: boolean;
  /** An exception thrown by `observe` escapes and fails the command. */
  readonly observeEscapes?: boolean;
  /** Whether leases claim live input (default true). */
  readonly liveInput?: boolean;
  /** Which file transfers leases have (default "full"). */
  readonly fileTransfers?: "full" | "without uploadBatch" | "none";
  /** upload/download are plain `cp -a` copies: links followed, `../` and absolute paths accepted. */
  readonly naiveTransfers?: boolean;
  /** Absolute sandbox paths are taken as given, outside root and home too. */
  readonly absolutePathsAnywhere?: boolean;
  /** A download source may use `../`; a missing one is refused as missing (what today's kit accepted). */
  readonly downloadFollowsDotDot?: boolean;
  /** A download source is not checked for links on the way. */
  readonly downloadFollowsLinks?: boolean;
  /** Commands run with HOME set to root instead of lease.home. */
  readonly homeElsewhere?: boolean;
  /** A HOME among the context's variables replaces lease.home. */
  readonly homeFromContext?: boolean;
  /** provider.variables are not given to commands. */
  readonly ignoreProviderVariables?: boolean;
  /** release() leaves processes that moved to a new session running (swept by `sweepReferenceStragglers`). */
  readonly releaseKeepsStragglers?: boolean;
  /** `interactive` is accepted and ignored: no terminal. */
  readonly acceptsInteractive?: boolean;
  /** upload/download write every file with mode 0644. */
  readonly transfersDropModes?: boolean;
  /** Transfers and manifests keep setuid, setgid and sticky bits. */
  readonly transfersKeepSpecialBits?: boolean;
  /** upload/download create only the directories that hold something. */
  readonly transfersLoseEmptyDirectories?: boolean;
  /** Transfers never look at deadlineMs. */
  readonly transfersIgnoreDeadline?: boolean;
  /** Transfers look at the signal only when called. */
  readonly transfersCheckAbortOnlyAtStart?: boolean;
  /** A batch writes each entry as soon as it is verified. */
  readonly batchWritesAsItGoes?: boolean;
  /** A batch does not look for links in its destination. */
  readonly batchFollowsDestinationLinks?: boolean;
  /** Each output chunk is decoded on its own (a character split between chunks becomes U+FFFD). */
  readonly decodesChunksApart?: boolean;
  /** A command whose output stays silent for 500 ms is taken as ended (a dropped stream taken as the end). */
  readonly endsAtSilence?: boolean;
  /** What a command left running is killed once it ended (a platform closing the command's session). */
  readonly killsBackgroundAfterCommand?: boolean;
  /** The home is a folder inside root. */
  readonly homeInsideRoot?: boolean;
}

/** Variables the reference provider adds to every command (unless `ignoreProviderVariables`). */
export const REFERENCE_VARIABLES = { OUTPOST_REFERENCE_PROVIDER: "from the reference provider ✓" };

const stragglers = new Set<string>();

/** Kills what leases with `releaseKeepsStragglers` left running, so the kit's own tests leak no processes. */
export function sweepReferenceStragglers(): void {
  for (const mark of stragglers) killMarked(mark);
  stragglers.clear();
}

/**
 * A small host-process provider for testing the kit itself: correct by default (it passes every check),
 * with one flag per defect the kit must catch.
 */
export function referenceProvider(flaws: ReferenceFlaws = {}, settings: { readonly home?: string } = {}): SandboxProvider {
  return {
    specificationVersion: "v1",
    name: "reference",
    placement: "host",
    variables: REFERENCE_VARIABLES,
    async acquire(context) {
      throwIfAborted(context.signal, "Acquiring a reference lease");
      // A given home (holding a recorded session) belongs to the caller; a fresh one is removed on release.
      const home =
        settings.home ??
        (flaws.homeInsideRoot
          ? await mkdtemp(join(context.directory, ".outpost-home-"))
          : await mkdtemp(join(tmpdir(), "outpost-reference-home-")));
      const mark = randomBytes(8).toString("hex");
      const running = new Set<() => void>();
      const groups = new Set<number>();
      let released = false;
      const anchors = { root: context.directory, home };
      const transfers = flaws.fileTransfers === "none" ? {} : { fileTransfers: referenceFileTransfers(anchors, flaws) };
      const provided = flaws.ignoreProviderVariables ? {} : REFERENCE_VARIABLES;
      const leaseHome = flaws.homeElsewhere ? context.directory : home;
      const lease: SandboxLease = {
        specificationVersion: "v1",
        root: context.directory,
        home,
        liveInput: flaws.liveInput ?? true,
        ...transfers,
        invoke: (command) => {
          if (released) return Promise.reject(new OutpostError("provider", "The reference lease was released. Acquire a new one."));
          if (command.interactive && !flaws.acceptsInteractive)
            return Promise.reject(
              new OutpostError("configuration", "The reference provider attaches no terminal. Run without `interactive`."),
            );
          const base = flaws.homeFromContext ? { HOME: leaseHome, ...context.variables } : { ...context.variables, HOME: leaseHome };
          const env = { ...process.env, ...provided, ...base, ...command.variables, [REFERENCE_MARK]: mark };
          return run(command, context.directory, env, flaws, running, groups);
        },
        ...referenceTransfers(anchors, flaws),
        async release() {
          if (released) return;
          released = true;
          for (const stop of running) stop();
          // Also whatever a flawed deadline left behind, so the kit's own tests leak no processes.
          for (const group of groups) signalGroup(group);
          if (flaws.releaseKeepsStragglers) stragglers.add(mark);
          else killMarked(mark);
          if (settings.home === undefined) await rm(home, { recursive: true, force: true });
        },
      };
      return lease;
    },
  };
}
