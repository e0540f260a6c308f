import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { localProvider } from "@outpost/provider-local";
import { afterAll, describe, expect, it } from "vitest";
import { dispatch, type AgentObservation } from "../src/index.js";
import { echoAgent, scratchRepository } from "./support/scratch-repository.js";

// Names of the public library the reference pages are silent on: accepted beside today's names.
const repository = scratchRepository("outpost-public-names-");
afterAll(() => rmSync(repository, { recursive: true, force: true }));
const git = (...args: string[]) => execFileSync("git", ["-C", repository, ...args], { encoding: "utf8" }).trim();
const run = (options: Omit<Parameters<typeof dispatch>[0], "agent" | "sandboxProvider" | "repository">) =>
  dispatch({ agent: echoAgent(), sandboxProvider: localProvider({ home: "private" }), repository, until: [], ...options });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("brief files take values", () => {
  writeFileSync(join(repository, "brief.md"), 'Fix {{issue}} in $(printf %s "$area").\n');

  it("as the public library names them, for placeholders and for commands", async () => {
    const result = await run({ brief: { file: "brief.md", values: { issue: "#42", area: "parser" } } });
    expect(result.text).toBe("Fix #42 in parser.\n");
  });

  it("or as variables; both at once must agree", async () => {
    expect((await run({ brief: { file: "brief.md", variables: { issue: "#7", area: "cli" } } })).text).toBe("Fix #7 in cli.\n");
    const same = { issue: "#8", area: "io" };
    expect((await run({ brief: { file: "brief.md", variables: same, values: { ...same } } })).text).toBe("Fix #8 in io.\n");
    const error = await failure(
      run({ brief: { file: "brief.md", variables: { issue: "#1", area: "a" }, values: { issue: "#2", area: "a" } } }),
    );
    expect(error).toMatchObject({ code: "configuration", message: expect.stringContaining("got both variables and values") });
  });

  it("a value that is not text is refused, naming it", async () => {
    const error = await failure(run({ brief: { file: "brief.md", values: { issue: 42 as unknown as string, area: "a" } } }));
    expect(error).toMatchObject({ code: "configuration", message: expect.stringContaining("brief.variables.issue") });
  });
});

describe("named branches take from", () => {
  it("as the start point of a branch that does not exist yet", async () => {
    const start = git("rev-parse", "HEAD");
    git("tag", "v1");
    git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "later");
    const result = await run({ brief: "x", branch: { mode: "named", name: "from-v1", from: "v1" } });
    expect(result.branch).toBe("from-v1");
    expect(git("rev-parse", "from-v1")).toBe(start);
  });

  it("conflicting with base, or looking like an option, is refused before anything is created", async () => {
    const both = await failure(run({ brief: "x", branch: { mode: "named", name: "both", base: "main", from: "v1" } }));
    expect(both).toMatchObject({ code: "configuration", message: expect.stringContaining("Pass one of them") });
    for (const from of ["--orphan", "", "main\nHEAD"]) {
      const error = await failure(run({ brief: "x", branch: { mode: "named", name: "odd", from } }));
      expect(error, JSON.stringify(from)).toMatchObject({ code: "configuration", message: expect.stringContaining("is not a revision") });
    }
    expect(git("branch", "--list", "both", "odd")).toBe("");
  });
});

describe("observations", () => {
  it("carry the event's own fields plus at and seq, beside event, pass and timestamp", async () => {
    const seen: AgentObservation[] = [];
    const before = Date.now();
    await run({ brief: "observe me", passes: 2, observe: (observation) => seen.push(observation) });
    expect(seen.map((observation) => observation.seq)).toEqual(seen.map((_, index) => index + 1));
    expect([...new Set(seen.map((observation) => observation.pass))]).toEqual([1, 2]);
    const finished = seen.find((observation) => observation.type === "finished");
    expect(finished).toMatchObject({ type: "finished", text: "observe me", event: { type: "finished", text: "observe me" } });
    for (const observation of seen) {
      expect(observation.at).toBe(Date.parse(observation.timestamp));
      expect(observation.at).toBeGreaterThanOrEqual(before - 1);
      expect(observation.type).toBe(observation.event.type);
    }
  });
});
