// Re-records the failure fixtures of the claude, codex and gemini plugins from their pinned CLIs: the scripted
// model server refuses every model call with a status, and the CLI's real stdout/stderr are written to
// packages/agent-<name>/tests/fixtures/failures/<name>-<version>-<case>.{stdout.jsonl,stderr.txt}.
//   npx tsx --conditions=outpost-source packages/e2e/scripts/record-failure-fixtures.ts [claude|codex|gemini]
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentAdapter } from "@outpost/core";
import { CLAUDE_CLI_VERSION, claudeAgent } from "@outpost/agent-claude";
import { CODEX_CLI_VERSION, codexAgent } from "@outpost/agent-codex";
import { GEMINI_CLI_VERSION, geminiAgent } from "@outpost/agent-gemini";
import { localProvider } from "@outpost/provider-local";
import { startModelServer, type ErrorStep, type ModelServer } from "@outpost/testkit/model-server";
import { agentSandbox } from "../tests/support/agent-sandbox.js";
import { pathWithClis } from "../tests/support/cli-bin.js";
import { runAgentTurn } from "../tests/support/run-agent-turn.js";

interface FailureCase {
  readonly name: string;
  readonly error: ErrorStep["error"];
}

interface Recording {
  readonly agent: string;
  readonly version: string;
  readonly create: (server: ModelServer) => AgentAdapter;
  readonly cases: readonly FailureCase[];
}

const RATE_LIMIT_BODY = {
  error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded", param: null },
};

const RECORDINGS: readonly Recording[] = [
  {
    agent: "claude",
    version: CLAUDE_CLI_VERSION,
    // One retry, so the fixture also shows the `api_retry` line.
    create: (server) => claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-fake", maxRetries: 1 }),
    cases: [
      { name: "429", error: { status: 429 } },
      { name: "529", error: { status: 529 } },
      { name: "503", error: { status: 503 } },
    ],
  },
  {
    agent: "codex",
    version: CODEX_CLI_VERSION,
    create: (server) => codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "fake", model: "gpt-5.5", maxRetries: 0 }),
    cases: [
      { name: "429-insufficient-quota", error: { status: 429 } },
      { name: "429-rate-limit", error: { status: 429, body: RATE_LIMIT_BODY } },
      { name: "500", error: { status: 500 } },
      { name: "503", error: { status: 503 } },
    ],
  },
  {
    agent: "gemini",
    version: GEMINI_CLI_VERSION,
    create: (server) => geminiAgent({ baseUrl: server.url, apiKey: "fake", model: "gemini-2.5-flash", maxAttempts: 1 }),
    cases: [
      { name: "429", error: { status: 429 } },
      { name: "503", error: { status: 503 } },
    ],
  },
];

const packages = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const only = process.argv[2];
const sandbox = await agentSandbox(localProvider({ variables: { PATH: pathWithClis() } }));
try {
  for (const recording of RECORDINGS.filter((entry) => only === undefined || entry.agent === only)) {
    for (const failure of recording.cases) {
      const server = await startModelServer({ responder: () => ({ error: failure.error }) });
      try {
        const lease = await sandbox.lease(`${recording.agent}-${failure.name}`);
        const run = await runAgentTurn(recording.create(server), lease, {
          prompt: "hello",
          deadlineMs: 120_000,
          variables: { TMPDIR: lease.home },
        });
        const base = join(
          packages,
          `agent-${recording.agent}`,
          "tests",
          "fixtures",
          "failures",
          `${recording.agent}-${recording.version}-${failure.name}`,
        );
        await writeFile(`${base}.stdout.jsonl`, run.result.stdout);
        await writeFile(`${base}.stderr.txt`, run.result.stderr);
        console.log(`${recording.agent} ${failure.name}: exit ${run.result.status}, ${server.turns().length} refused calls → ${base}.*`);
      } finally {
        await server.close();
      }
    }
  }
} finally {
  await sandbox.dispose();
}
