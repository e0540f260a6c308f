import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const built = ["../dist/index.js", "../../testkit/dist/index.js", "../../core/dist/index.js"].every((path) =>
  existsSync(fileURLToPath(new URL(path, import.meta.url))),
);

// Plain Node resolves the packages through their exports maps to dist/, as an installed copy would.
const script = `
import { localProvider } from "@outpost/provider-local";
import { describeSandboxProvider } from "@outpost/testkit";
import { tmpdir } from "node:os";
const lease = await localProvider({ home: "private" }).acquire({ repository: tmpdir(), directory: tmpdir(), gitDirectories: [], variables: {} });
const result = await lease.invoke({ executable: "sh", arguments: ["-c", "printf built"] });
await lease.release();
console.log(JSON.stringify({ stdout: result.stdout, kit: typeof describeSandboxProvider }));
`;

describe("the built package", () => {
  (built ? it : it.skip)(
    built
      ? "resolves through its exports map and runs a command"
      : "resolves through its exports map (skipped: dist/ not built; run npm run build)",
    () => {
      const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd: fileURLToPath(new URL("..", import.meta.url)),
        encoding: "utf8",
      });
      expect(JSON.parse(output)).toEqual({ stdout: "built", kit: "function" });
    },
  );
});
