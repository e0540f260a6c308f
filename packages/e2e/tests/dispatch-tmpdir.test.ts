import { mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentAdapter } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { scratchRepository } from "../src/index.js";

// Every temporary directory the engine and the local provider make on the host follows TMPDIR (issue 19):
// a user who points TMPDIR at a fast or private disk gets the staging folder and the private home there.
const savedTmp = process.env.TMPDIR;
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

/** An agent that reports, while it runs, what is in the probed folder and where its home is. */
function listingAgent(probed: string): AgentAdapter {
  const line =
    `printf '{"type":"text","text":"%s"}\\n' "$(ls -A "$PROBED" | tr '\\n' ' ')home=$HOME" && ` +
    `printf '%s\\n' '{"type":"finished","text":"done"}'`;
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "listing-agent",
    executable: "sh",
    requiresFinishedEvent: true,
    usage: "unavailable",
    resumable: false,
    forkable: false,
    command: () => ({ executable: "sh", arguments: ["-c", line], variables: { PROBED: probed } }),
    createDecoder: () => ({ decode: (text: string) => [JSON.parse(text) as never] }),
  };
}

describe("temporary directories follow TMPDIR", () => {
  it("the staging folder and the private home are made under TMPDIR, and nothing is left there afterwards", async () => {
    const repository = scratchRepository();
    const own = realpathSync(mkdtempSync(join(tmpdir(), "outpost-own-tmp-")));
    try {
      process.env.TMPDIR = own;
      expect(tmpdir()).toBe(own);
      const texts: string[] = [];
      const result = await dispatch({
        agent: listingAgent(own),
        brief: "list",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        observe: (observed) => void (observed.event.type === "text" && texts.push(observed.event.text)),
      });
      expect(result.text).toBe("done");
      const seen = texts.join("\n");
      expect(seen).toMatch(/outpost-staging-\S+/);
      expect(seen).toMatch(/outpost-home-\S+/);
      expect(seen).toMatch(new RegExp(`home=${own}/outpost-home-`));
      expect(readdirSync(own)).toEqual([]);
    } finally {
      rmSync(own, { recursive: true, force: true });
      rmSync(repository, { recursive: true, force: true });
    }
  });
});
