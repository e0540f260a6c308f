/** The test functions a suite registers with. Vitest's by default; any compatible runner can be passed. */
export interface SuiteRunner {
  describe(name: string, body: () => void): void;
  it: SuiteTest;
  beforeAll(body: () => unknown, timeoutMs?: number): void;
  afterAll(body: () => unknown, timeoutMs?: number): void;
}

export interface SuiteTest {
  (name: string, body: () => unknown, timeoutMs?: number): void;
  skip(name: string, body?: () => unknown): void;
}

type Vitest = typeof import("vitest");

// vitest is an optional peer: a plugin author with another runner passes `runner` and never needs it.
const vitest: Vitest | undefined = await import("vitest").catch(() => undefined);

function requireVitest(): Vitest {
  if (!vitest) {
    throw new Error(
      "@outpost/testkit: vitest is not installed. Install vitest (a peer dependency) or pass `runner` with your test runner's describe/it/beforeAll/afterAll.",
    );
  }
  return vitest;
}

export const vitestRunner: SuiteRunner = {
  describe: (name, body) => requireVitest().describe(name, body),
  it: Object.assign((name: string, body: () => unknown, timeoutMs?: number) => requireVitest().it(name, body, timeoutMs), {
    skip: (name: string, body?: () => unknown) => requireVitest().it.skip(name, body ?? (() => undefined)),
  }),
  beforeAll: (body, timeoutMs) => requireVitest().beforeAll(body, timeoutMs),
  afterAll: (body, timeoutMs) => requireVitest().afterAll(body, timeoutMs),
};
