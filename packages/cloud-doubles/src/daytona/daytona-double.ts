import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DoubleFault, FaultPlan } from "../framework/fault-plan.js";
import { startDoubleServer } from "../framework/double-server.js";
import { Latency } from "../framework/latency.js";
import type { RoundTrips } from "../framework/round-trips.js";
import { assertAuthorized, DoubleRefusal, readJson, sendJson, sendRefusal } from "./double-http.js";
import { LogSockets, type StreamDrops } from "./double-logs.js";
import { SandboxRegistry } from "./double-registry.js";
import { serveToolbox } from "./double-toolbox.js";

/** A fault for the Daytona double (`match` against `METHOD path`, e.g. "POST /api/sandbox"). */
export type DaytonaFault = DoubleFault;

export interface DaytonaDoubleOptions {
  /** The API key the double accepts (random when omitted). */
  readonly apiKey?: string;
  /** Where the sandboxes' directories live (a fresh temporary directory by default). */
  readonly directory?: string;
  /** Injected delay per request and per log-stream message, in ms (default 0). */
  readonly latencyMs?: number;
  /** Cut every log stream this long after it opened, as a proxy or a flaky network does (default never). */
  readonly dropLogStreamsAfterMs?: number;
}

export interface DaytonaDouble {
  /** For `new Daytona(…)` or `daytonaProvider(…)`: the double's `apiUrl`, the key it accepts and a target. */
  readonly credentials: { readonly apiKey: string; readonly apiUrl: string; readonly target: string };
  /** Every request the double answered (`METHOD path`), for tests. */
  readonly requests: readonly string[];
  /** The requests as time spans: `serial()` counts the round trips a client waited for one after the other. */
  readonly roundTrips: RoundTrips;
  /** Bytes the double has read from its clients so far (headers and bodies), to check how much a sync sent. */
  receivedBytes(): number;
  /** Sets the injected delay per request and per log-stream message. */
  setLatency(delayMs: number): void;
  /** Answers the next matching requests with this fault instead. */
  fault(fault: DaytonaFault): void;
  /** Cuts log streams after they have been open this long (`undefined`: never). */
  dropLogStreams(drops: StreamDrops | undefined): void;
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

const CODES: Record<number, string> = {
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
};

/** Starts a local HTTP server speaking the Daytona API and toolbox as @daytonaio/sdk 0.218.0 uses them, with real processes. */
export async function startDaytonaDouble(options: DaytonaDoubleOptions = {}): Promise<DaytonaDouble> {
  const apiKey = options.apiKey ?? `dtn_double_${randomBytes(12).toString("hex")}`;
  const base = options.directory ?? (await mkdtemp(join(tmpdir(), "outpost-daytona-double-")));
  let origin = "";
  let createDelayMs = 0;
  const registry = new SandboxRegistry(base, () => `${origin}/toolbox`);
  const faults = new FaultPlan(CODES);
  const latency = new Latency(options.latencyMs ?? 0);
  const logs = new LogSockets(
    latency,
    options.dropLogStreamsAfterMs === undefined ? undefined : { afterMs: options.dropLogStreamsAfterMs },
  );

  const handle = async (request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> => {
    const method = request.method ?? "GET";
    const route = `${method} ${url.pathname}`;
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

  const served = await startDoubleServer({
    handle,
    upgrade: (request, socket, head, url) => {
      assertAuthorized(request, apiKey);
      const match = /^\/toolbox\/([^/]+)\/process\/session\/([^/]+)\/command\/([^/]+)\/logs$/.exec(url.pathname);
      if (match === null) throw new DoubleRefusal(404, "NOT_FOUND", "No such log stream.");
      const sandbox = registry.get(decodeURIComponent(match[1]!));
      sandbox.assertStarted();
      logs.upgrade(request, socket, head, sandbox.command(decodeURIComponent(match[2]!), decodeURIComponent(match[3]!)));
    },
    refuse: sendRefusal,
    requestId: { header: "x-request-id", value: (sequence) => `req_double_${sequence}` },
    faults,
    latency,
  });
  origin = served.origin;

  return {
    credentials: { apiKey, apiUrl: `${origin}/api`, target: "us" },
    requests: served.requests,
    roundTrips: served.roundTrips,
    receivedBytes: served.receivedBytes,
    setLatency: (delayMs) => latency.set(delayMs),
    fault: (fault) => faults.add(fault),
    dropLogStreams: (drops) => logs.drops(drops),
    slowCreate: (delayMs) => void (createDelayMs = delayMs),
    vanish: (idOrName) => registry.get(idOrName).destroy(),
    sandboxes: () => registry.list().map((sandbox) => sandbox.id),
    directoryOf: (idOrName) => registry.get(idOrName).directory,
    close: async () => {
      for (const sandbox of registry.list()) await sandbox.destroy();
      await logs.close();
      await served.close();
      if (options.directory === undefined) await rm(base, { recursive: true, force: true });
    },
  };
}
