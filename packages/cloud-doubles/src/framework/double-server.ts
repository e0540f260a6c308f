import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { receivedBytesOf } from "@outpost/plugin-utils";
import { DoubleRefusal } from "./double-refusal.js";
import type { FaultPlan } from "./fault-plan.js";
import { Latency } from "./latency.js";
import { RoundTrips } from "./round-trips.js";

export interface DoubleServerOptions {
  /** Serves one request (after the latency and any armed fault); throws a DoubleRefusal to refuse it. */
  readonly handle: (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<void>;
  /** Takes a WebSocket upgrade (after the latency and any armed fault); throws a DoubleRefusal to refuse it. */
  readonly upgrade?: (request: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => void;
  /** Writes the API's error answer for a refusal. */
  readonly refuse: (response: ServerResponse, refusal: DoubleRefusal) => void;
  /** The request id header the API sets (`x-request-id`, `x-vercel-id`) and how its values look. */
  readonly requestId: { readonly header: string; readonly value: (sequence: number) => string };
  readonly faults: FaultPlan;
  /** Injected delay per request (and, through the double, per WebSocket message); none by default. */
  readonly latency?: Latency;
}

/** The shared part of every API double: one loopback HTTP server, its latency, faults and request log. */
export interface DoubleServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly server: Server;
  /** Every request served (`METHOD path`, `WS path` for upgrades), for tests. */
  readonly requests: string[];
  readonly latency: Latency;
  readonly roundTrips: RoundTrips;
  /** Bytes read from clients so far (headers and bodies). */
  receivedBytes(): number;
  close(): Promise<void>;
}

/** Starts a double's HTTP server on loopback. */
export async function startDoubleServer(options: DoubleServerOptions): Promise<DoubleServer> {
  const latency = options.latency ?? new Latency();
  const roundTrips = new RoundTrips();
  const requests: string[] = [];
  let sequence = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://double");
    const route = `${request.method ?? "GET"} ${url.pathname}`;
    requests.push(route);
    const answered = roundTrips.begin(route);
    response.once("finish", answered).once("close", answered);
    response.setHeader(options.requestId.header, options.requestId.value(++sequence));
    const served = async () => {
      await latency.wait();
      const fault = options.faults.take(route);
      if (fault !== undefined) {
        request.resume();
        throw fault;
      }
      await options.handle(request, response, url);
    };
    served().catch((error: unknown) => {
      if (response.headersSent) return void response.destroy();
      const refusal =
        error instanceof DoubleRefusal
          ? error
          : new DoubleRefusal(500, "internal_server_error", `The double failed: ${(error as Error).message}`);
      options.refuse(response, refusal);
    });
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://double");
    requests.push(`WS ${url.pathname}`);
    const answered = roundTrips.begin(`WS ${url.pathname}`);
    void latency.wait().then(() => {
      try {
        const fault = options.faults.take(`GET ${url.pathname}`);
        if (fault !== undefined) throw fault;
        if (options.upgrade === undefined) throw new DoubleRefusal(404, "not_found", "No WebSocket here.");
        options.upgrade(request, socket, head, url);
      } catch (error) {
        const status = error instanceof DoubleRefusal ? error.status : 500;
        socket.end(`HTTP/1.1 ${status} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      } finally {
        answered();
      }
    });
  });
  const receivedBytes = receivedBytesOf(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    requests,
    latency,
    roundTrips,
    receivedBytes,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
