/**
 * Why a stored relative path is unsafe, or undefined when it is sound. Paths are POSIX names as capture
 * read them: "/" separates segments and a backslash is an ordinary character, so whatever capture accepts
 * is accepted here too; empty, ".", ".." and ".git" segments, NUL and absolute paths are not.
 */
export function relativeNameProblem(path: string): string | undefined {
  if (path === "") return "it is empty";
  if (path.includes("\0")) return "it contains a NUL byte";
  if (path.startsWith("/")) return "it is absolute";
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return `it has an empty, "." or ".." segment`;
    if (segment === ".git") return "it is a .git entry";
  }
  return undefined;
}
