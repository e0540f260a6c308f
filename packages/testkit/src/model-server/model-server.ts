import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { OutpostError } from "@outpost/core";
import { conversationResponder } from "./conversation-responder.js";
import type { HttpAnswer } from "./http-answer.js";
import { json } from "./http-answer.js";
import type { ModelApi, ModelRequest } from "./model-request.js";
import { findProtocol } from "./protocols.js";
import { readBody } from "./read-body.js";
import { resolveStep, ToolMismatch } from "./resolve-step.js";
import type { Responder, ScriptStep } from "./script-step.js";

export interface ModelServerOptions {
  /** Replies in order, one per turn request (side requests never consume one). */
  readonly script?: readonly ScriptStep[];
  /** Decides replies once the script is used up. Default: `conversationResponder()`. */
  readonly responder?: Responder;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Larger request bodies are answered 413. Default 64 MiB. */
  readonly maxBodyBytes?: number;
  /** Streamed text is sent in deltas of at most this many characters, as real APIs do. Default: one delta. */
  readonly textDeltaSize?: number;
}

/** One request as received, logged before it is answered. */
export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  /** Raw body text (decompressed). */
  readonly body: string;
  /** Parsed JSON body, when it parsed. */
  readonly json?: unknown;
  readonly api?: ModelApi;
  /** `turn`: a model call answered from the script or responder; `side`: answered on the side; `other`: not a model call. */
  readonly kind: "turn" | "side" | "other";
  /** Index of the script step that answered, for turns answered from the script. */
  readonly step?: number;
  /** The normalized view, for model calls. */
  readonly model?: ModelRequest;
  /** Status of the answer, set once answered. */
  status?: number;
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in arrival order. */
  readonly requests: readonly LoggedRequest[];
  /** Requests answered from the script or responder (no side requests). */
  turns(api?: ModelApi): LoggedRequest[];
  /** Problems the server met (a scripted tool the request did not offer, a throwing responder…): assert it stays empty. */
  readonly problems: readonly string[];
  /** Appends steps to the script. */
  push(...steps: ScriptStep[]): void;
  /** Script steps not yet consumed. */
  readonly remaining: number;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 64 * 1024 * 1024;

/** Starts the scripted model server on loopback. See the testkit README, "Scripted model server". */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const script = [...(options.script ?? [])];
  let consumed = 0;
  const responder = options.responder ?? conversationResponder();
  const requests: LoggedRequest[] = [];
  const problems: string[] = [];
  const sockets = new Set<Socket>();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      problems.push(`internal: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) send(response, json(500, { error: { message: "model server failure" } }));
      else response.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://model.server");
    const query = Object.fromEntries(url.searchParams);
    const headers = flattenHeaders(request.headers);
    const method = request.method ?? "GET";
    const body = await readBody(request, maxBodyBytes);
    const base = { method, path: url.pathname, query, headers, body: body.text };
    if (body.error)
      return answer(response, { ...base, kind: "other" }, json(body.error.status, { error: { message: body.error.message } }));
    const protocol = method === "POST" ? findProtocol(url.pathname) : undefined;
    if (!protocol) return answer(response, { ...base, kind: "other" }, otherAnswer(method, url.pathname));
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      return answer(response, { ...base, kind: "other", api: protocol.api }, json(400, { error: { message: "request body is not JSON" } }));
    }
    const record = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    const model = protocol.parse(record, url.pathname, query, headers);
    const logged = { ...base, json: parsed, api: protocol.api, model };
    const side = protocol.side(model);
    if (side) return answer(response, { ...logged, kind: "side" }, side);
    // The step is taken synchronously on arrival, so concurrent requests consume steps in arrival order.
    const step = consumed < script.length ? script[consumed] : responder;
    const index = consumed < script.length ? consumed++ : undefined;
    const entry: LoggedRequest = { ...logged, kind: "turn", ...(index === undefined ? {} : { step: index }) };
    requests.push(entry);
    let resolved;
    try {
      resolved = await resolveStep(step as ScriptStep, model);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      problems.push(message);
      const status = error instanceof ToolMismatch ? 400 : 500;
      return answer(response, entry, protocol.render({ kind: "error", status, message }, model), false);
    }
    if (resolved.delayMs > 0) await delay(resolved.delayMs, request);
    const reply =
      resolved.reply.kind === "message" && options.textDeltaSize !== undefined
        ? { ...resolved.reply, deltaSize: options.textDeltaSize }
        : resolved.reply;
    return answer(response, entry, protocol.render(reply, model), false);
  }

  function answer(response: ServerResponse, entry: LoggedRequest, reply: HttpAnswer, log = true): void {
    entry.status = reply.status;
    if (log) requests.push(entry);
    send(response, reply);
  }

  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new OutpostError(
          "configuration",
          `The model server cannot listen on ${host}:${port} (${error.code ?? error.message}). Pass port 0 for a free port, or a free one.`,
          {
            cause: error,
            details: { host, port },
          },
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    requests,
    problems,
    turns: (api) => requests.filter((entry) => entry.kind === "turn" && (api === undefined || entry.api === api)),
    push: (...steps) => void script.push(...steps),
    get remaining() {
      return script.length - consumed;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function send(response: ServerResponse, reply: HttpAnswer): void {
  response.writeHead(reply.status, reply.headers);
  for (const chunk of reply.chunks) response.write(chunk);
  response.end();
}

/** Probes and listings CLIs make besides model calls (HEAD /, GET /v1/models…): plausible, never a script step. */
function otherAnswer(method: string, path: string): HttpAnswer {
  if (method === "HEAD" || (method === "GET" && (path === "/" || path.endsWith("/hello")))) return { status: 200, headers: {}, chunks: [] };
  if (method === "GET" && /\/v1beta\/models$/.test(path)) return json(200, { models: [] });
  if (method === "GET" && /\/models$/.test(path)) return json(200, { object: "list", data: [] });
  return json(404, { error: { message: `model server: no route for ${method} ${path}` } });
}

function flattenHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  return flat;
}

function delay(ms: number, request: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      request.socket.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    request.socket.once("close", done);
  });
}
