import type { SuiteRunner } from "../src/shared/suite-runner.js";

export interface RecordedCase {
  /** Titles from the outermost describe down to the case, joined with " > ". */
  readonly title: string;
  readonly skipped: boolean;
  readonly body?: () => unknown;
}

export interface RecordedSuite {
  readonly runner: SuiteRunner;
  readonly cases: RecordedCase[];
  /** Runs beforeAll hooks, the cases whose title matches, then afterAll hooks; returns failures by title. */
  run(filter?: (title: string) => boolean): Promise<Map<string, Error>>;
}

/** A runner that records what a suite registers, so a test can run it and inspect which cases fail. */
export function recordedSuite(): RecordedSuite {
  const cases: RecordedCase[] = [];
  const before: (() => unknown)[] = [];
  const after: (() => unknown)[] = [];
  const path: string[] = [];
  const title = (name: string) => [...path, name].join(" > ");
  const it = Object.assign((name: string, body: () => unknown) => void cases.push({ title: title(name), skipped: false, body }), {
    skip: (name: string) => void cases.push({ title: title(name), skipped: true }),
  });
  const runner: SuiteRunner = {
    describe: (name, body) => {
      path.push(name);
      body();
      path.pop();
    },
    it,
    beforeAll: (body) => void before.push(body),
    afterAll: (body) => void after.push(body),
  };
  return {
    runner,
    cases,
    async run(filter = () => true) {
      const failures = new Map<string, Error>();
      for (const hook of before) await hook();
      try {
        for (const recorded of cases) {
          if (recorded.skipped || !filter(recorded.title)) continue;
          try {
            await recorded.body!();
          } catch (error) {
            failures.set(recorded.title, error as Error);
          }
        }
      } finally {
        for (const hook of after) await hook();
      }
      return failures;
    },
  };
}
