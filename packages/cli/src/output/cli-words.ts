import { existsSync } from "node:fs";
import { sep } from "node:path";
import { OutpostError } from "@outpost/core";

// The engine's messages name its options (it is a library too); the CLI's users know flags and commands.
const REWRITES: readonly (readonly [RegExp, string])[] = [
  [/\bRaise deadlineMs\b/g, "Raise --deadline-ms"],
  [/\bRaise idleMs\b/g, "Raise --idle-ms"],
  [/\bdeadlineMs\b/g, "--deadline-ms"],
  [/\bidleMs\b/g, "--idle-ms"],
  [/\brequireConversation\b/g, "--require-conversation"],
  [/\bconversationHome\b/g, "--conversation-home"],
  [
    /Capture it first, or pass the home it was captured under\./g,
    "Continue a conversation an earlier `outpost run` captured (its result prints the id), or pass the --conversation-home <dir> it was captured under.",
  ],
  // git's own advice for a worktree with changes: the kept work is the point, so it must not be forced away.
  [/, use --force to delete it/g, ""],
];

/** The engine's advice when an agent's CLI fails (dispatch's run-turn.ts). */
const AGENT_FAILED_ADVICE = "Check the agent's configuration and the sandbox.";

/** A message of the engine in the command line's words. */
export function inCliWords(message: string): string {
  return REWRITES.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), message);
}

interface Recovery {
  readonly commits?: readonly string[];
  readonly conversationId?: string;
  readonly recoveryLocation?: string;
  readonly phase?: string;
  readonly directory?: string;
}

/** The error in the CLI's words; "Work is kept on … (0 commits)" only when there is work to keep. */
export function errorInCliWords(error: OutpostError): OutpostError {
  let message = inCliWords(error.message);
  // The agent's CLI failed (a missing key is the usual first one): the doctor checks that CLI and its key as a run does.
  const agent = /^([\w.-]+) failed \(exit /.exec(message)?.[1];
  message = message.replace(
    AGENT_FAILED_ADVICE,
    `Check the agent's configuration and the sandbox: \`outpost doctor${agent ? ` --agent ${agent}` : ""}\` reports its CLI and whether its key is found (keys go in .outpost/.env).`,
  );
  const recovery = (error.details as { recovery?: Recovery } | undefined)?.recovery;
  if (recovery && (recovery.commits?.length ?? 0) === 0 && !recovery.conversationId && !recovery.recoveryLocation) {
    // A managed worktree still on disk may hold uncommitted work: it stays named.
    const kept = recovery.directory?.includes(`${sep}.outpost${sep}workspaces${sep}`) && existsSync(recovery.directory);
    const tail = kept ? ` Its worktree is kept: ${recovery.directory} (\`outpost ps\` lists it, \`outpost clean\` removes it).` : "";
    message = message.replace(
      / Work is kept on .*? \(0 commits\); failed phase: ([^.]*)\./,
      ` Nothing was committed (failed phase: $1).${tail}`,
    );
  }
  return message === error.message ? error : new OutpostError(error.code, message, { cause: error, details: error.details });
}
