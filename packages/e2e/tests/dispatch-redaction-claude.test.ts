import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { claudeAgent } from "@outpost/agent-claude";
import { createObservationHub, dispatch, type DispatchResult } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { startModelServer, type ScriptStep } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";

// A secret in the brief (a `redact.values` entry), one in an environment variable of the agent (a credential by
// its name, redacted without being asked) and one only in tool output (a `redact.patterns` match). The real Claude
// Code CLI runs against the scripted model server; then every file Outpost wrote is searched for their bytes.
const require = createRequire(import.meta.url);
const claudePackage = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
const claudeBinary = join(claudePackage, (require("@anthropic-ai/claude-code/package.json") as { bin: { claude: string } }).bin.claude);
const packages = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BRIEF_SECRET = "brief-secret-5f1c9a7e";
const ENV_SECRET = "env-secret-83b2e7d4c1";
const API_KEY = "sk-ant-redaction-0a1b2c3d4e5f";
// Computed by the shell, so only the tool's output holds it, never the command the model sent.
const TOOL_SECRET = "TOPSECRET-4002";
const SECRETS = [BRIEF_SECRET, ENV_SECRET, API_KEY, TOOL_SECRET];
const redact = { values: [BRIEF_SECRET], patterns: [/TOPSECRET-\d+/] };

const printSecrets: ScriptStep = {
  toolCall: {
    name: "Bash",
    arguments: { command: 'printf "%s %s\\n" "$E2E_TOKEN" "TOPSECRET-$((4000+2))"', description: "Print the token" },
  },
};
const script = (): ScriptStep[] => [printSecrets, { text: `Printed them; the brief said ${BRIEF_SECRET}. <outpost>done</outpost>` }];

/** A checkout whose `.outpost/.env` (the user's file, not Outpost's) gives every agent command E2E_TOKEN. */
function repositoryWithToken(): string {
  const repository = scratchRepository("outpost-redact-");
  mkdirSync(join(repository, ".outpost"), { recursive: true, mode: 0o700 });
  writeFileSync(join(repository, ".outpost", ".env"), `E2E_TOKEN=${ENV_SECRET}\n`, { mode: 0o600 });
  return repository;
}

/** Every regular file under `roots` (links are not followed), but `skip`. */
async function filesUnder(roots: readonly string[], skip: ReadonlySet<string>): Promise<string[]> {
  const files: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const stat = await lstat(path).catch(() => undefined);
    if (!stat || skip.has(path)) return;
    if (stat.isDirectory()) for (const name of await readdir(path)) await walk(join(path, name));
    else if (stat.isFile()) files.push(path);
  };
  for (const root of roots) await walk(root);
  return files;
}

/** Which secrets each file holds, files without any left out. */
async function secretsIn(files: readonly string[]): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const file of files) {
    const bytes = await readFile(file);
    const held = SECRETS.filter((secret) => bytes.includes(secret));
    if (held.length) found[file] = held;
  }
  return found;
}

/** Runs the dispatch with telemetry, observe, warn, diagnostic and the hub all written to files under `emitted`. */
async function redactedDispatch(repository: string, conversations: boolean): Promise<{ result: DispatchResult; emitted: string }> {
  const server = await startModelServer({ script: script() });
  const emitted = mkdtempSync(join(tmpdir(), "outpost-redact-emitted-"));
  const lines: string[] = [];
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("e2e");
  const hub = createObservationHub();
  hub.subscribe((event) => void lines.push(JSON.stringify({ hub: event })));
  try {
    const result = await dispatch({
      agent: claudeAgent({ baseUrl: server.url, apiKey: API_KEY, executable: claudeBinary, maxRetries: 0 }),
      brief: `Print the token. The word of the day is ${BRIEF_SECRET}.`,
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      conversationHome: join(repository, ".outpost", "conversations"),
      logging: { verbose: true },
      telemetry: { tracer, attributes: { "e2e.brief": `about ${BRIEF_SECRET}` } },
      observation: hub,
      observe: (observation) => void lines.push(JSON.stringify({ observe: observation })),
      warn: (message) => void lines.push(JSON.stringify({ warn: message })),
      diagnostic: (message) => void lines.push(JSON.stringify({ diagnostic: message })),
      redact: { ...redact, conversations },
    });
    const spans = exporter.getFinishedSpans().map((span) => ({
      name: span.name,
      attributes: span.attributes,
      events: span.events,
      status: span.status,
    }));
    writeFileSync(join(emitted, "telemetry.json"), JSON.stringify(spans));
    writeFileSync(join(emitted, "observations.jsonl"), lines.join("\n"));
    return { result, emitted };
  } finally {
    await server.close();
  }
}

describe("redaction with the real Claude Code CLI (local provider)", () => {
  it("no secret in any byte Outpost stored or emitted; the byte-exact native conversation holds them", async () => {
    const repository = repositoryWithToken();
    const { result, emitted } = await redactedDispatch(repository, false);
    expect(result.completed).toBe(true);
    // The agent saw the real values: the tool ran with the token and the model was asked with the brief.
    const conversation = result.conversation!.file;
    const files = await filesUnder([join(repository, ".outpost"), emitted], new Set([join(repository, ".outpost", ".env")]));
    expect(files.some((file) => file.includes(join(".outpost", "storage")))).toBe(true);
    expect(files).toContain(conversation);
    const found = await secretsIn(files);
    // The walk sees them where they are: the captured conversation is the agent's own, byte-exact.
    expect(found[conversation]).toEqual(expect.arrayContaining([BRIEF_SECRET, ENV_SECRET, TOOL_SECRET]));
    delete found[conversation];
    expect(found).toEqual({});
    const observations = await readFile(join(emitted, "observations.jsonl"), "utf8");
    expect(observations).toContain("[redacted]");
    // The result is the caller's own answer, returned in memory: it is not redacted (what `--json` prints of it is).
    expect(result.text).toContain(BRIEF_SECRET);
  }, 180_000);

  it("with conversations: true the captured conversation is redacted too", async () => {
    const repository = repositoryWithToken();
    const { result, emitted } = await redactedDispatch(repository, true);
    expect(result.completed).toBe(true);
    const files = await filesUnder([join(repository, ".outpost"), emitted], new Set([join(repository, ".outpost", ".env")]));
    expect(files).toContain(result.conversation!.file);
    expect(await secretsIn(files)).toEqual({});
    expect(await readFile(result.conversation!.file, "utf8")).toContain("[redacted]");
  }, 180_000);

  it("an error the dispatch throws names no secret: the watchdog stops a call that prints one", async () => {
    const echo: ScriptStep = {
      toolCall: { name: "Bash", arguments: { command: `echo ${BRIEF_SECRET} ${TOOL_SECRET}`, description: "Echo" } },
    };
    const server = await startModelServer({ script: Array.from({ length: 6 }, () => echo) });
    try {
      const repository = repositoryWithToken();
      const error = await dispatch({
        agent: claudeAgent({ baseUrl: server.url, apiKey: API_KEY, executable: claudeBinary, maxRetries: 0 }),
        brief: `Print the token, ${BRIEF_SECRET}.`,
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        watchdog: { repeatedToolCalls: 2 },
        redact,
      }).then(
        () => undefined,
        (caught: unknown) => caught as Error & { code: string; details: unknown },
      );
      expect(error?.code).toBe("stuck");
      // The repeated call's arguments are in the message and details, redacted.
      const thrown = JSON.stringify({ message: error!.message, stack: error!.stack, details: error!.details });
      expect(thrown).toContain("[redacted]");
      for (const secret of SECRETS) expect(thrown).not.toContain(secret);
      const files = await filesUnder([join(repository, ".outpost")], new Set([join(repository, ".outpost", ".env")]));
      const found = await secretsIn(files);
      for (const file of Object.keys(found)) if (file.includes(join(".outpost", "conversations"))) delete found[file];
      expect(found).toEqual({});
    } finally {
      await server.close();
    }
  }, 180_000);

  it("outpost run --json --redact prints no secret", async () => {
    const server = await startModelServer({ script: script() });
    try {
      const repository = repositoryWithToken();
      const tsxLoader = pathToFileURL(join(packages, "../node_modules/tsx/dist/loader.mjs")).href;
      // Asynchronous: the model server answers from this process while the CLI runs.
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) =>
        execFile(
          process.execPath,
          [
            "--conditions=outpost-source",
            "--import",
            tsxLoader,
            join(packages, "cli/src/bin.ts"),
            "run",
            `Print the token. The word of the day is ${BRIEF_SECRET}.`,
            "--agent",
            "claude",
            "--provider",
            "local",
            "--base-url",
            server.url,
            "--executable",
            claudeBinary,
            "--json",
            "--verbose",
            "--redact",
            BRIEF_SECRET,
            "--redact",
            "/TOPSECRET-\\d+/",
          ],
          { cwd: repository, encoding: "utf8", timeout: 150_000, env: { ...process.env, ANTHROPIC_API_KEY: API_KEY } },
          (error, stdout, stderr) => done({ status: error ? ((error.code as number | undefined) ?? -1) : 0, stdout, stderr }),
        ),
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('"type":"result"');
      expect(run.stdout).toContain("[redacted]");
      for (const secret of SECRETS) expect(run.stdout).not.toContain(secret);
      const files = await filesUnder([join(repository, ".outpost")], new Set([join(repository, ".outpost", ".env")]));
      const found = await secretsIn(files);
      for (const file of Object.keys(found)) if (file.includes(join(".outpost", "conversations"))) delete found[file];
      expect(found).toEqual({});
    } finally {
      await server.close();
    }
  }, 180_000);
});
