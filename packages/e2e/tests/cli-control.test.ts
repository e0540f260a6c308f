import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "@outpost/cli";
import { startModelServer, type Responder, type ScriptStep } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";
import { CLI_BIN, missingCli } from "./support/cli-bin.js";

// `outpost run --response` and steering typed on the terminal, in-process, with the real Claude Code CLI.
const unavailable = missingCli("claude");

interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI; `terminal` makes stdout and stdin look like a terminal (the progress display and typed lines). */
async function outpost(args: string[], terminal?: { readonly stdin: PassThrough }): Promise<Run> {
  const stdout = Object.assign(new PassThrough(), terminal ? { isTTY: true } : {});
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => void (out += chunk.toString()));
  stderr.on("data", (chunk: Buffer) => void (err += chunk.toString()));
  const stdin = terminal ? Object.assign(terminal.stdin, { isTTY: true }) : undefined;
  const status = await main(["node", "outpost", ...args], { stdout, stderr, ...(stdin ? { stdin } : {}) });
  return { status, stdout: out, stderr: err };
}

function common(url: string): string[] {
  return [
    "--agent",
    "claude",
    "--provider",
    "local",
    "--base-url",
    url,
    "--executable",
    join(CLI_BIN, "claude"),
    "--repository",
    scratchRepository(),
  ];
}

(unavailable ? describe.skip : describe)(
  `outpost run: typed responses and steering${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
  () => {
    it("--response <schema.json> validates the answer against the JSON Schema and prints the value (progress and --json)", async () => {
      const schema = join(mkdtempSync(join(tmpdir(), "outpost-cli-schema-")), "task.json");
      writeFileSync(
        schema,
        JSON.stringify({
          type: "object",
          properties: { title: { type: "string" }, count: { type: "integer" } },
          required: ["title", "count"],
        }),
      );
      let answers = 0;
      // First answer invalid (count is text): the repair turn carries the issue and is answered correctly.
      const responder: Responder = () =>
        answers++ % 2 === 0
          ? { text: '<response>{"title":"t","count":"two"}</response>' }
          : { text: '<response>{"title":"t","count":2}</response>' };
      const server = await startModelServer({ responder });
      try {
        process.env["ANTHROPIC_API_KEY"] ??= "sk-ant-test";
        const plain = await outpost(["run", ...common(server.url), "--response", schema, "Describe the task."]);
        expect(plain.status, plain.stderr).toBe(0);
        expect(plain.stdout).toContain('value: {\n  "title": "t",\n  "count": 2\n}');
        expect(server.turns()[0]!.model!.prompt).toContain('"required"');
        expect(server.turns()[1]!.model!.prompt).toMatch(/count/);

        const json = await outpost(["run", ...common(server.url), "--response", schema, "--json", "Describe the task."]);
        expect(json.status, json.stderr).toBe(0);
        const result = JSON.parse(json.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
        expect(result).toMatchObject({ type: "result", completed: true, value: { title: "t", count: 2 } });
      } finally {
        await server.close();
      }
    }, 180_000);

    it("--response with a file that is not a JSON Schema object fails with code configuration before anything runs", async () => {
      const schema = join(mkdtempSync(join(tmpdir(), "outpost-cli-schema-")), "bad.json");
      writeFileSync(schema, "[1, 2]");
      const server = await startModelServer({ responder: () => ({ text: "unused" }) });
      try {
        const run = await outpost(["run", ...common(server.url), "--response", schema, "--json", "Describe the task."]);
        expect(run.status).not.toBe(0);
        expect(JSON.parse(run.stdout.trim().split("\n").at(-1)!)).toMatchObject({ type: "error", code: "configuration" });
        expect(server.requests).toEqual([]);
      } finally {
        await server.close();
      }
    }, 60_000);

    it("on a terminal, a line typed during the run is sent as steering and shown in the progress display", async () => {
      const stdin = new PassThrough();
      let typed = false;
      const responder: Responder = async (request): Promise<ScriptStep> => {
        if (!typed) {
          typed = true;
          stdin.write("STEERING-9: answer in French\n");
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          return { toolCall: { names: ["Write"], arguments: { file_path: "hello.txt", content: "hi" } } };
        }
        return { text: `steered=${request.transcript.includes("STEERING-9")} <outpost>done</outpost>` };
      };
      const server = await startModelServer({ responder });
      try {
        process.env["ANTHROPIC_API_KEY"] ??= "sk-ant-test";
        const run = await outpost(["run", ...common(server.url), "Create hello.txt containing hi."], { stdin });
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout).toContain("✎ steering injected: STEERING-9: answer in French");
        expect(run.stdout).toContain("steered=true");
      } finally {
        await server.close();
      }
    }, 180_000);
  },
);
