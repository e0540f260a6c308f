import { join } from "node:path";
import { fixtureReader } from "@outpost/testkit";

/** Recorded CLI output under `tests/fixtures/<folder>/<file>`. */
export const { fixtureLines, fixtureText, fixtureFiles } = fixtureReader(join(import.meta.dirname, "fixtures"));
