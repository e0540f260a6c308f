import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const FIXTURES = join(import.meta.dirname, "fixtures");

/** Lines of a recorded stdout stream under `tests/fixtures/<folder>/`. */
export function fixtureLines(folder: string, file: string): string[] {
  return readFileSync(join(FIXTURES, folder, file), "utf8").split("\n").filter((line) => line.length > 0);
}

export function fixtureText(folder: string, file: string): string {
  return readFileSync(join(FIXTURES, folder, file), "utf8");
}

export function fixtureFiles(folder: string, suffix: string): string[] {
  return readdirSync(join(FIXTURES, folder)).filter((file) => file.endsWith(suffix)).sort();
}
