import type { ResponseIssue } from "./response-spec.js";

export type Extracted =
  { readonly found: true; readonly value: unknown } | { readonly found: false; readonly issues: readonly ResponseIssue[] };

/**
 * Finds the last complete `<tag>…</tag>` block of the text and parses its content as JSON, fenced
 * (```json … ```) or bare. A block the agent opened but never closed does not count.
 */
export function extractResponse(text: string, tag: string): Extracted {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const end = text.lastIndexOf(close);
  const start = end < 0 ? -1 : text.lastIndexOf(open, end);
  if (start < 0)
    return issue(
      `No complete ${open}…${close} block was found in the final answer. End your answer with the value as JSON inside ${open}${close}.`,
    );
  const content = unfence(text.slice(start + open.length, end).trim());
  if (content === "") return issue(`The ${open}…${close} block is empty. Put the value as JSON inside it.`);
  try {
    return { found: true, value: JSON.parse(content) as unknown };
  } catch (error) {
    return issue(
      `The ${open}…${close} block is not valid JSON (${error instanceof Error ? error.message : String(error)}). Write plain JSON inside it.`,
    );
  }
}

// A fence with an optional language (```json) around the whole content is removed.
function unfence(content: string): string {
  const fenced = /^```[\w-]*\s*\n([\s\S]*?)\n?```$/.exec(content);
  return fenced ? fenced[1]!.trim() : content;
}

function issue(message: string): Extracted {
  return { found: false, issues: [{ message }] };
}
