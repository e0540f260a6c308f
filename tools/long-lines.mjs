// Lines a reader can see whole: none over MAX_LINE characters in a package's src/, tests/ and bench/ (Prettier
// wraps code at 140 but leaves long strings and comments alone; those are wrapped by hand).
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { walkSources } from "./source-files.mjs";

export const MAX_LINE = 200;

export function checkLongLines(folder, packageDir) {
  const found = [];
  for (const file of ["src", "tests", "bench"].flatMap((name) => [...walkSources(join(packageDir, name))])) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, index) => {
        if (line.length > MAX_LINE)
          found.push(
            `packages/${folder}/${relative(packageDir, file)}:${index + 1}: line of ${line.length} characters; wrap it under ${MAX_LINE + 1}`,
          );
      });
  }
  return found;
}
