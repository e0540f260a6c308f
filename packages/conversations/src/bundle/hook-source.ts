import { OutpostError } from "@outpost/core";
import { TRANSPILER_HELPERS, withNameHelpers } from "../sandbox/transpiler-helpers.js";

type Hook = (...parameters: never[]) => unknown;

/**
 * The source of a profile hook as an expression that evaluates to the function on its own. Method
 * shorthand (`relocate(path, text) {…}`) is turned into a function expression; native or bound functions
 * cannot be serialized and are refused.
 */
export function hookSource(name: string, hook: Hook | undefined, format: string): string | undefined {
  if (hook === undefined) return undefined;
  if (typeof hook !== "function") throw invalid(name, format, "it is not a function");
  const source = hook.toString();
  if (source.includes("[native code]"))
    throw invalid(name, format, "it is a native or bound function, whose source cannot be sent to the sandbox");
  for (const candidate of [source, `function ${source.replace(/^async\s+/, "")}`]) {
    try {
      // Compiles without running: only checks that the text is a function expression on its own.
      new Function(`return (${candidate});`);
      // A minified build renames esbuild's `__name` helper: bind it back (see transpiler-helpers).
      return withNameHelpers(candidate);
    } catch {
      // Try the next spelling.
    }
  }
  throw invalid(name, format, "its source is not a standalone function expression");
}

/**
 * The profile's hooks as one expression (a `ProfileHooks` object) that the sandbox programs receive. Hooks
 * are the user's own functions, built by whatever tool: esbuild's name helper is defined beside them.
 */
export function profileHooksSource(format: string, sources: Readonly<Record<string, string | undefined>>): string {
  const entries = Object.entries(sources)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, source]) => `${JSON.stringify(name)}: (${source})`);
  // The format is data: embedded as a JSON string, never spliced into the code (it may hold quotes).
  return `(() => { ${TRANSPILER_HELPERS} return { format: ${JSON.stringify(format)}${entries.map((entry) => `, ${entry}`).join("")} }; })()`;
}

function invalid(name: string, format: string, problem: string): OutpostError {
  return new OutpostError(
    "configuration",
    `The ${name} hook of the ${format} profile cannot run in a sandbox: ${problem}. Write it as a self-contained function.`,
    { details: { hook: name, format } },
  );
}
