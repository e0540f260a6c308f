import * as vitest from "vitest";

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

export const vitestRunner: SuiteRunner = {
  describe: (name, body) => vitest.describe(name, body),
  it: Object.assign((name: string, body: () => unknown, timeoutMs?: number) => vitest.it(name, body, timeoutMs), {
    skip: (name: string, body?: () => unknown) => vitest.it.skip(name, body ?? (() => undefined)),
  }),
  beforeAll: (body, timeoutMs) => vitest.beforeAll(body, timeoutMs),
  afterAll: (body, timeoutMs) => vitest.afterAll(body, timeoutMs),
};
