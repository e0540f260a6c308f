import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Readers for recorded agent output kept under one fixtures folder (`tests/fixtures/<folder>/<file>`). */
export interface FixtureReader {
  /** Non-empty lines of a recorded stream. */
  fixtureLines(folder: string, file: string): string[];
  fixtureText(folder: string, file: string): string;
  /** Files of `folder` ending with `suffix`, sorted. */
  fixtureFiles(folder: string, suffix: string): string[];
}

export function fixtureReader(root: string): FixtureReader {
  const text = (folder: string, file: string) => readFileSync(join(root, folder, file), "utf8");
  return {
    fixtureText: text,
    fixtureLines: (folder, file) =>
      text(folder, file)
        .split("\n")
        .filter((line) => line.length > 0),
    fixtureFiles: (folder, suffix) =>
      readdirSync(join(root, folder))
        .filter((file) => file.endsWith(suffix))
        .sort(),
  };
}
