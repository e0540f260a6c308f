import type { IncomingMessage, ServerResponse } from "node:http";
import { bulkDownload, bulkUpload, createFolder } from "./double-files.js";
import { DoubleRefusal, optionalString, readJson, requiredString, sendJson } from "./double-http.js";
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

/** POST /process/execute: one command through a shell, answered when it ended (`exitCode`, `result` = its output). */
async function executeOnce(sandbox: DoubleSandbox, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request);
  const entry = sandbox.executeOnce(requiredString(body, "command"), optionalString(body, "cwd"));
  await entry.done;
  const result = Buffer.concat(entry.logs.map((log) => log.data)).toString("utf8");
  sendJson(response, 200, { exitCode: entry.exitCode, result });
}
