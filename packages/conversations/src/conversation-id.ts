import { OutpostError } from "@outpost/core";

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Refuses an id that could not be used safely as a file name (`..`, `/`, NUL, empty, too long). */
export function assertConversationId(id: string): string {
  if (typeof id !== "string" || !SAFE_ID.test(id) || id.includes("..")) {
    throw new OutpostError(
      "session",
      `Refused conversation id ${JSON.stringify(String(id)).slice(0, 80)}: ids are 1-200 letters, digits, '.', '_' or '-' and never contain "..". Pass the id the agent reported.`,
      { details: { id: String(id).slice(0, 200) } },
    );
  }
  return id;
}
