import type { IncomingMessage, ServerResponse } from "node:http";
import { bulkDownload, bulkUpload, createFolder } from "./double-files.js";
import { DoubleRefusal, optionalString, readJson, requiredString, sendJson } from "./double-http.js";
import { daemonArgv } from "./daemon-command-line.js";
import type { DoubleSandbox } from "./double-sandbox.js";

/** The toolbox (daemon) routes the SDK calls under `<toolboxProxyUrl>/<sandboxId>`. */
export async function serveToolbox(
  sandbox: DoubleSandbox,
  method: string,
  path: string,
  request: IncomingMessage,
  response: ServerResponse,
  query: URLSearchParams,
): Promise<void> {
  sandbox.assertStarted();
  const route = `${method} ${path}`;
  if (route === "GET /user-home-dir") return sendJson(response, 200, { dir: sandbox.home });
  if (route === "GET /work-dir") return sendJson(response, 200, { dir: sandbox.workDir });
  if (route === "GET /version") return sendJson(response, 200, { version: "outpost-double" });
  if (route === "POST /files/folder") return createFolder(sandbox, query, response);
  if (route === "POST /files/bulk-upload") return bulkUpload(sandbox, request, response);
  if (route === "POST /files/bulk-download") return bulkDownload(sandbox, request, response);
  if (route === "POST /process/execute") return executeOnce(sandbox, request, response);
  if (route === "POST /process/session") {
    sandbox.createSession(requiredString(await readJson(request), "sessionId"));
    return sendJson(response, 201, undefined);
  }
  const session = /^\/process\/session\/([^/]+)(\/.*)?$/.exec(path);
  if (session !== null) {
    const [sessionId, rest] = [decodeURIComponent(session[1]!), session[2] ?? ""];
    if (method === "DELETE" && rest === "") {
      sandbox.deleteSession(sessionId);
      return sendJson(response, 204, undefined);
    }
    if (method === "POST" && rest === "/exec") return execute(sandbox, sessionId, request, response);
    const command = /^\/command\/([^/]+)(\/logs)?$/.exec(rest);
    if (method === "GET" && command !== null) {
      const entry = sandbox.command(sessionId, decodeURIComponent(command[1]!));
      if (command[2] === undefined) {
        return sendJson(response, 200, {
          id: entry.id,
          command: entry.command,
          ...(entry.exitCode === undefined ? {} : { exitCode: entry.exitCode }),
        });
      }
      const text = (stream: "stdout" | "stderr") =>
        Buffer.concat(entry.logs.filter((log) => log.stream === stream).map((log) => log.data)).toString("utf8");
      return sendJson(response, 200, { output: text("stdout") + text("stderr"), stdout: text("stdout"), stderr: text("stderr") });
    }
  }
  throw new DoubleRefusal(404, "NOT_FOUND", `The double does not serve ${route} (see its README for the covered surface).`);
}

/** POST /process/session/{id}/exec: `runAsync` answers with the command id at once; otherwise waits. */
async function execute(sandbox: DoubleSandbox, sessionId: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request);
  const command = requiredString(body, "command");
  const entry = sandbox.execute(sessionId, command);
  if (body.runAsync === true || body.async === true) return sendJson(response, 200, { cmdId: entry.id });
  await entry.done;
  // The daemon would wait for an exit code forever; the double says why none will come.
  if (entry.lost)
    throw new DoubleRefusal(
      400,
      "BAD_REQUEST",
      `The shell of session ${sessionId} exited before command ${entry.id} ended (did it exec or exit?).`,
    );
  const text = (stream: "stdout" | "stderr") =>
    Buffer.concat(entry.logs.filter((log) => log.stream === stream).map((log) => log.data)).toString("utf8");
  sendJson(response, 200, {
    cmdId: entry.id,
    output: text("stdout") + text("stderr"),
    stdout: text("stdout"),
    stderr: text("stderr"),
    exitCode: entry.exitCode,
  });
}

/**
 * POST /process/execute, as daytonaio/daytona `apps/daemon/pkg/toolbox/process/execute/execute.go` serves it:
 * the line's words run as a program with no shell (see daemonArgv), in `cwd` or else the daemon's own
 * directory (the working directory); the request's `envs` (which `@daytonaio/sdk` 0.218 sends) is not a field
 * of the daemon's ExecuteRequest and is ignored. No time limit unless `timeout` (seconds) > 0: then the
 * process group is ended and the answer is 408. Answered when it ended: `exitCode` and `result`, stdout and
 * stderr in one buffer; a program that could not start is exit code -1 with the error as its result.
 */
async function executeOnce(sandbox: DoubleSandbox, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request);
  const command = requiredString(body, "command");
  if (daemonArgv(command).length === 0) throw new DoubleRefusal(400, "BAD_REQUEST", "empty command");
  const timeout = typeof body.timeout === "number" && body.timeout > 0 ? body.timeout : undefined;
  const entry = sandbox.executeOnce(command, optionalString(body, "cwd"));
  let timedOut = false;
  const timer =
    timeout === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          // The daemon ends the tree gracefully (TerminateProcessTreeGracefully): TERM, then KILL.
          entry.kill("SIGTERM");
          setTimeout(() => entry.kill("SIGKILL"), 1_000).unref();
        }, timeout * 1_000);
  await entry.done;
  clearTimeout(timer);
  if (timedOut)
    throw new DoubleRefusal(
      408,
      "REQUEST_TIMEOUT",
      `Command execution timed out after ${timeout} seconds. The timeout can be increased by adjusting the timeout parameter in the request.`,
    );
  const result = entry.startFailure ?? Buffer.concat(entry.logs.map((log) => log.data)).toString("utf8");
  sendJson(response, 200, { exitCode: entry.exitCode, result });
}
