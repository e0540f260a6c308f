/**
 * For a session-bundle profile's hooks, the only functions whose source goes to a sandbox (they are the
 * user's, built by any tool; Outpost's own sandbox code is a file of its own, see program-file.ts).
 * Code built by esbuild (tsx, vite, vitest) with `keepNames` wraps named functions and classes in a helper
 * call, `__name(fn, "fn")`, that lives at the top of the module, outside the function whose source we send
 * to the sandbox. Serialized code gets the helper back from this preamble. It behaves like esbuild's own.
 */
export const TRANSPILER_HELPERS = `var __name = (target, value) => Object.defineProperty(target, "name", { value, configurable: true });`;

const CALL = /(?<![\w$.#])([A-Za-z_$][\w$]*)\(/g;
const NAME = /,\s*"[A-Za-z_$][\w$]*"$/;
// Minifiers name their helpers with one or two characters; a longer free name is the user's own.
const MINIFIED_LENGTH = 2;
const FUNCTION_VALUE = /^(?:function\b|async\b|class\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/;

/**
 * Minifiers rename `__name` (to `n`, `e`…), so the wrapped source calls a helper it does not define. This
 * finds such helpers: a short (minified) identifier that is never declared or read as a value, and only ever
 * called in the three shapes esbuild emits: `static{h(this,"C")`, `h(<function>,"f")` and `h(g,"g")` right
 * after `function g` or `class g`. Any other free name stays free, so the hook fails clearly.
 */
export function renamedNameHelpers(source: string): string[] {
  const shapes = new Map<string, boolean>();
  for (const match of source.matchAll(CALL)) {
    const name = match[1]!;
    if (name === "__name" || KEYWORDS.has(name)) continue;
    const start = match.index + match[0].length;
    const end = closingParenthesis(source, start);
    const inner = end === -1 ? "" : source.slice(start, end).trim();
    const before = source
      .slice(0, match.index)
      .replace(/\s*\/\*\s*@__PURE__\s*\*\/\s*$/, "")
      .trimEnd();
    const shape =
      NAME.test(inner) &&
      ((/^this\s*,/.test(inner) && /static\s*\{$/.test(before)) ||
        FUNCTION_VALUE.test(inner) ||
        declaredBefore(before, /^([A-Za-z_$][\w$]*)\s*,/.exec(inner)?.[1]));
    shapes.set(name, (shapes.get(name) ?? true) && shape);
  }
  const mentions = (name: string, suffix: string) => source.match(new RegExp(`(?<![\\w$.#])${escape(name)}${suffix}`, "g"))?.length ?? 0;
  return [...shapes]
    .filter(
      ([name, onlyKeepNames]) => onlyKeepNames && name.length <= MINIFIED_LENGTH && mentions(name, "(?![\\w$])") === mentions(name, "\\("),
    )
    .map(([name]) => name);
}

/** `h(g,"g")` as a statement following the declaration of `g` (a function or class). */
function declaredBefore(before: string, declared: string | undefined): boolean {
  if (declared === undefined || !/[;}]$/.test(before)) return false;
  return new RegExp(`(?:function\\*?|class)\\s+${escape(declared)}(?![\\w$])`).test(before);
}

/** Binds renamed helpers to `__name` around a function expression, so it evaluates on its own. */
export function withNameHelpers(source: string): string {
  const helpers = renamedNameHelpers(source);
  return helpers.length === 0 ? source : `((${helpers.join(", ")}) => (${source}))(${helpers.map(() => "__name").join(", ")})`;
}

function closingParenthesis(source: string, from: number): number {
  let depth = 1;
  let quote: string | undefined;
  for (let index = from; index < source.length; index++) {
    const char = source[index]!;
    if (quote) {
      if (char === "\\") index++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'" || char === "`") quote = char;
    else if (char === "(" || char === "[" || char === "{") depth++;
    else if (char === ")" || char === "]" || char === "}") {
      depth--;
      if (depth === 0) return char === ")" ? index : -1;
    }
  }
  return -1;
}

function escape(name: string): string {
  return name.replace(/\$/g, "\\$");
}

const KEYWORDS = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "function",
  "return",
  "typeof",
  "await",
  "new",
  "super",
  "import",
  "with",
  "void",
  "delete",
  "in",
  "of",
  "do",
  "else",
  "case",
  "throw",
  "yield",
]);
