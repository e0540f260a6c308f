import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { FaultPlan, type DaytonaFault } from "./double-faults.js";
import { assertAuthorized, DoubleRefusal, readJson, sendJson, sendRefusal } from "./double-http.js";
import { LogSockets } from "./double-logs.js";
import { SandboxRegistry } from "./double-registry.js";
import { serveToolbox } from "./double-toolbox.js";
import { receivedBytesOf } from "@outpost/plugin-utils";

export interface DaytonaDoubleOptions {
  /** The API key the double accepts (random when omitted). */
  readonly apiKey?: string;
  /** Where the sandboxes' directories live (a fresh temporary directory by default). */
  readonly directory?: string;
}

export interface DaytonaDouble {
  /** For `new Daytona(…)` or `daytonaProvider(…)`: the double's `apiUrl`, the key it accepts and a target. */
  readonly credentials: { readonly apiKey: string; readonly apiUrl: string; readonly target: string };
  /** Every request the double answered (`METHOD path`), for tests. */
  readonly requests: readonly string[];
  /** Bytes the double has read from its clients so far (headers and bodies), to check how much a sync sent. */
  receivedBytes(): number;
  /** Answers the next matching requests with this fault instead. */
  fault(fault: DaytonaFault): void;
  /** Delays every sandbox creation by this long (a slow cold start). */
  slowCreate(delayMs: number): void;
  /** Deletes a sandbox behind the client's back: its processes die and open log streams are cut. */
  vanish(idOrName: string): Promise<void>;
  /** Ids of the sandboxes that exist (started or stopped). */
  sandboxes(): string[];
  /** The host directory standing for a sandbox's filesystem, for tests. */
  directoryOf(idOrName: string): string;
  close(): Promise<void>;
}

/** Starts a local HTTP server speaking the Daytona API and toolbox as @daytonaio/sdk 0.218.0 uses them, with real processes. */
export async function startDaytonaDouble(options: DaytonaDoubleOptions = {}): Promise<DaytonaDouble> {
  const apiKey = options.apiKey ?? `dtn_double_${randomBytes(12).toString("hex")}`;
  const base = options.directory ?? (await mkdtemp(join(tmpdir(), "outpost-daytona-double-")));
  let origin = "";
  let createDelayMs = 0;
  const registry = new SandboxRegistry(base, () => `${origin}/toolbox`);
  const faults = new FaultPlan();
  const logs = new LogSockets();
  const requests: string[] = [];
  let sequence = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", "http://double");
    const method = request.method ?? "GET";
    const route = `${method} ${url.pathname}`;
    requests.push(route);
    const fault = faults.take(route);
    if (fault !== undefined) throw new DoubleRefusal(fault.status, fault.code, fault.message, fault.headers);
    assertAuthorized(request, apiKey);
    const toolbox = /^\/toolbox\/([^/]+)(\/.*)$/.exec(url.pathname);
    if (toolbox !== null)
      return serveToolbox(registry.get(decodeURIComponent(toolbox[1]!)), method, toolbox[2]!, request, response, url.searchParams);
    const api = /^\/api\/sandbox(?:\/([^/]+))?(\/[a-z-]+)?$/.exec(url.pathname);
    if (api === null) throw new DoubleRefusal(404, "NOT_FOUND", `The double does not serve ${route} (see its README).`);
    const [id, action] = [api[1] === undefined ? undefined : decodeURIComponent(api[1]), api[2] ?? ""];
    if (id === undefined && method === "POST") {
      const body = await readJson(request);
      if (createDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, createDelayMs));
      return sendJson(response, 200, registry.json(await registry.create(body)));
    }
    if (id === undefined && method === "GET")
      return sendJson(
        response,
        200,
        registry.list().map((sandbox) => registry.json(sandbox)),
      );
    if (id === undefined) throw new DoubleRefusal(405, "METHOD_NOT_ALLOWED", `${route} is not allowed.`);
    const sandbox = registry.get(id);
    if (method === "GET" && action === "") return sendJson(response, 200, registry.json(sandbox));
    if (method === "GET" && action === "/toolbox-proxy-url") return sendJson(response, 200, { url: `${origin}/toolbox` });
    if (method === "POST" && action === "/start") {
      sandbox.start();
      return sendJson(response, 200, registry.json(sandbox));
    }
    if (method === "POST" && action === "/stop") {
      await sandbox.stop();
      return sendJson(response, 200, registry.json(sandbox));
    }
    if (method === "DELETE" && action === "") {
      await sandbox.destroy();
      return sendJson(response, 200, registry.json(sandbox));
    }
    throw new DoubleRefusal(404, "NOT_FOUND", `The double does not serve ${route} (see its README).`);
  };

  const server = createServer((request, response) => {
    const requestId = `req_double_${++sequence}`;
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return void response.destroy();
      const refusal =
        error instanceof DoubleRefusal
          ? error
          : new DoubleRefusal(500, "INTERNAL_SERVER_ERROR", `The double failed: ${(error as Error).message}`);
      sendRefusal(response, refusal, requestId);
    });
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://double");
    requests.push(`WS ${url.pathname}`);
    const match = /^\/toolbox\/([^/]+)\/process\/session\/([^/]+)\/command\/([^/]+)\/logs$/.exec(url.pathname);
    try {
      const fault = faults.take(`GET ${url.pathname}`);
      if (fault !== undefined) throw new DoubleRefusal(fault.status, fault.code, fault.message);
      assertAuthorized(request, apiKey);
      if (match === null) throw new DoubleRefusal(404, "NOT_FOUND", "No such log stream.");
      const sandbox = registry.get(decodeURIComponent(match[1]!));
      sandbox.assertStarted();
      logs.upgrade(request, socket, head, sandbox.command(decodeURIComponent(match[2]!), decodeURIComponent(match[3]!)));
    } catch (error) {
      const status = error instanceof DoubleRefusal ? error.status : 500;
      socket.end(`HTTP/1.1 ${status} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    }
  });
  const receivedBytes = receivedBytesOf(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    credentials: { apiKey, apiUrl: `${origin}/api`, target: "us" },
    requests,
    receivedBytes,
    fault: (fault) => faults.add(fault),
    slowCreate: (delayMs) => void (createDelayMs = delayMs),
    vanish: (idOrName) => registry.get(idOrName).destroy(),
    sandboxes: () => registry.list().map((sandbox) => sandbox.id),
    directoryOf: (idOrName) => registry.get(idOrName).directory,
    close: async () => {
      for (const sandbox of registry.list()) await sandbox.destroy();
      await logs.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (options.directory === undefined) await rm(base, { recursive: true, force: true });
    },
  };
}
