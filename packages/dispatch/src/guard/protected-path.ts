/**
 * Compiles a `protectedPaths` entry: a plain path covers itself and everything under it; `*` and `?` stay
 * within one segment, `**` crosses segments. Written by hand because it is a dozen lines and the engine takes
 * no dependency for it.
 */
export function protectedPathMatcher(pattern: string): (path: string) => boolean {
  const trimmed = pattern.replace(/^\.\//, "").replace(/\/+$/, "");
  let source = "";
  for (let index = 0; index < trimmed.length; index += 1) {
    const char = trimmed[index]!;
    if (char === "*" && trimmed[index + 1] === "*") {
      // `**/` matches zero or more whole segments; a trailing `**` matches anything.
      const slash = trimmed[index + 2] === "/";
      source += slash ? "(?:.*/)?" : ".*";
      index += slash ? 2 : 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  // Whatever matches is protected with all it contains.
  const expression = new RegExp(`^${source}(?:/.*)?$`);
  return (path) => expression.test(path);
}
