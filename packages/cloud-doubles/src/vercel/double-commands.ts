import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { posix } from "node:path";
import { commandJson } from "./double-json.js";
import type { LogEntry } from "./double-process.js";
import { DoubleRefusal, optionalNumber, optionalString, readJson, sendJson, stringArray, stringRecord } from "./double-request.js";
import type { DoubleCommand, DoubleSession } from "./double-sandbox.js";
import { SplitLineWriter } from "./split-writer.js";

/** One ndjson line, raw UTF-8 as the API writes it (see SplitLineWriter for how it travels). */
export function ndjsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

const NDJSON = { "content-type": "application/x-ndjson" };

/** POST cmd: starts a real process; with `wait: true` answers an ndjson stream (command, logs, finished command). */
export async function startCommand(session: DoubleSession, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request);
  const command = optionalString(body, "command");
  if (command === undefined || command === "") throw new DoubleRefusal(400, "bad_request", "`command` is required.");
  const args = stringArray(body, "args");
  const env = stringRecord(body, "env");
  const timeout = optionalNumber(body, "timeout");
  const cwd = posix.resolve(session.sandbox.cwd, optionalString(body, "cwd") ?? ".");
  if (!(await stat(cwd).catch(() => undefined))?.isDirectory())
    throw new DoubleRefusal(400, "bad_request", `cwd ${cwd} is not a directory.`);
  const entry = session.run(command, args, cwd, env, timeout);
  if (body.wait !== true) return sendJson(response, 200, { command: commandJson(entry, session.id) });
  response.writeHead(200, NDJSON);
  const writer = new SplitLineWriter(response);
  writer.write(ndjsonLine({ command: commandJson(entry, session.id) }));
  streamLogs(entry, session, response, writer, body.logs === true, true);
}

/** GET cmd/{id}: the command, or with `?wait=true` the finished command once it exits. */
export async function getCommand(session: DoubleSession, command: DoubleCommand, wait: boolean, response: ServerResponse): Promise<void> {
  if (wait)
    await Promise.race([
      command.process.done,
      new Promise<void>((resolve) => command.process.follow((entry) => entry === undefined && resolve())),
    ]);
  if (wait && command.process.exitCode === null)
    throw new DoubleRefusal(410, "sandbox_stopped", "The sandbox stopped before the command finished.");
  sendJson(response, 200, { command: commandJson(command, session.id) });
}

/** GET cmd/{id}/logs: ndjson log lines, replayed from the start then followed until the command ends. */
export function commandLogs(session: DoubleSession, command: DoubleCommand, response: ServerResponse): void {
  response.writeHead(200, NDJSON);
  streamLogs(command, session, response, new SplitLineWriter(response), true, false);
}

/** POST cmd/{id}/kill: sends the numeric `signal` to the command's process group. */
export async function killCommand(
  session: DoubleSession,
  command: DoubleCommand,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = await readJson(request);
  const signal = optionalNumber(body, "signal") ?? 15;
  if (!Number.isInteger(signal) || signal < 1 || signal > 64)
    throw new DoubleRefusal(400, "bad_request", "`signal` must be a signal number.");
  command.process.signal(signal);
  sendJson(response, 200, { command: commandJson(command, session.id) });
}

function streamLogs(
  command: DoubleCommand,
  session: DoubleSession,
  response: ServerResponse,
  writer: SplitLineWriter,
  logs: boolean,
  finish: boolean,
): void {
  let closed = false;
  response.once("close", () => {
    closed = true;
    unsubscribe();
  });
  const unsubscribe = command.process.follow((entry: LogEntry | undefined) => {
    if (closed) return;
    if (entry !== undefined) {
      if (logs) writer.write(ndjsonLine({ stream: entry.stream, data: entry.data }));
      return;
    }
    if (command.process.exitCode === null) {
      // The sandbox went away under the command: the stream ends with an error line, as on Vercel.
      writer.end(
        ndjsonLine({ stream: "error", data: { code: "sandbox_stopped", message: "The sandbox was stopped while the command ran." } }),
      );
      return;
    }
    if (finish) writer.end(ndjsonLine({ command: commandJson(command, session.id) }));
    else writer.end();
  });
}
