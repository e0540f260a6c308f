import { OutpostError } from "@outpost/core";
import { withNameHelpers } from "../sandbox/transpiler-helpers.js";

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

/** Script prelude that defines `hooks` and `callHook` for bundle programs in the sandbox. */
export function hookPrelude(format: string, sources: Readonly<Record<string, string | undefined>>): string {
  const entries = Object.entries(sources)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, source]) => `${JSON.stringify(name)}: (${source})`);
  // The format is data: embedded as a JSON string, never spliced into the code (it may hold quotes).
  return `const hooks = { ${entries.join(", ")} };
const profileFormat = ${JSON.stringify(format)};
const callHook = (name, call) => {
  try {
    return call();
  } catch (error) {
    if (error && typeof error.outpostCode === "string") throw error;
    const reference = !!error && error.name === "ReferenceError";
    const message = error && error.message ? error.message : String(error);
    throw Object.assign(new Error(reference
      ? "The " + name + " hook of the " + profileFormat + " profile is not self-contained: " + message +
        ". Hooks run inside the sandbox, so they may use only their arguments and the helpers they are given."
      : "The " + name + " hook of the " + profileFormat + " profile threw: " + message + ". The existing session was left untouched; fix the hook or the session files."),
      { outpostCode: reference ? "configuration" : "session", details: { hook: name } });
  }
};`;
}

function invalid(name: string, format: string, problem: string): OutpostError {
  return new OutpostError(
    "configuration",
    `The ${name} hook of the ${format} profile cannot run in a sandbox: ${problem}. Write it as a self-contained function.`,
    { details: { hook: name, format } },
  );
}
