/**
 * The task handed to the agent: literal text, or a file (relative to the repository root) whose
 * `{{name}}` placeholders take `variables` (alias `values`, the public library's name) and whose
 * `$(command)` spans take the command's output.
 */
export type Brief =
  | string
  | { readonly text: string }
  | { readonly file: string; readonly variables?: Readonly<Record<string, string>>; readonly values?: Readonly<Record<string, string>> };

/** Largest brief accepted, before and after expansion. */
export const MAX_BRIEF_BYTES = 1024 * 1024;
