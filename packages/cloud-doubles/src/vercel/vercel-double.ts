import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandLogs, getCommand, killCommand, startCommand } from "./double-commands.js";
import { type DoubleFault, FaultPlan } from "../framework/fault-plan.js";
import { startDoubleServer } from "../framework/double-server.js";
import { Latency } from "../framework/latency.js";
import type { RoundTrips } from "../framework/round-trips.js";
import { makeDirectory, readFileRoute, writeFiles } from "./double-files.js";
import { sessionJson } from "./double-json.js";
import { DoubleRefusal, readJson, sendJson, sendRefusal } from "./double-request.js";
import { SandboxRegistry } from "./double-sandboxes.js";

/** A fault for the Vercel double (`match` against `METHOD path`, e.g. /^POST \/v[23]\/sandboxes$/). */
export type VercelFault = DoubleFault;

const CODES: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  402: "payment_required",
  403: "forbidden",
  404: "not_found",
  429: "rate_limited",
  500: "internal_server_error",
  502: "bad_gateway",
  503: "service_unavailable",
};

/** The origin the SDK calls by default; the double's `fetch` sends those requests to the double. */
const VERCEL_API = "https://vercel.com/api";

export interface VercelDoubleOptions {
  /** Credentials the double accepts (random when omitted). */
  readonly token?: string;
  readonly teamId?: string;
  readonly projectId?: string;
  /** Where the sandboxes' filesystems live (a fresh temporary directory by default). */
  readonly directory?: string;
  /** Injected delay per request, in ms (default 0). */
  readonly latencyMs?: number;
}

export interface VercelDouble {
  /** The double's base URL (http://127.0.0.1:port). */
  readonly url: string;
  /** A fetch for the SDK's `fetch` option: requests to the Vercel API go to the double instead. */
  readonly fetch: typeof globalThis.fetch;
  /** Credentials the double accepts, in the shape the SDK takes them. */
  readonly credentials: { readonly token: string; readonly teamId: string; readonly projectId: string };
  /** Every request the double answered (`METHOD path`), for tests. */
  readonly requests: readonly string[];
  /** The requests as time spans: `serial()` counts the round trips a client waited for one after the other. */
  readonly roundTrips: RoundTrips;
  /** Sets the injected delay per request. */
  setLatency(delayMs: number): void;
  /** Bytes the double has read from its clients so far (headers and bodies), to check how much a sync sent. */
  receivedBytes(): number;
  /** Answers the next matching requests with this fault instead. */
  fault(fault: VercelFault): void;
  /** Delays every sandbox creation by this long (a slow cold start). */
  slowCreate(delayMs: number): void;
  /** Deletes a sandbox behind the client's back: its processes die and running commands end with an error line. */
  vanish(name: string): Promise<void>;
  /** Names of the sandboxes that exist (not deleted). */
  sandboxes(): string[];
  /** The host directory standing for a sandbox's filesystem root, for tests. */
  directoryOf(name: string): string;
  close(): Promise<void>;
}

/** Starts a local HTTP server speaking the Vercel Sandbox API as @vercel/sandbox 3.5.0 uses it, with real processes. */
export async function startVercelDouble(options: VercelDoubleOptions = {}): Promise<VercelDouble> {
  const credentials = {
    token: options.token ?? `double_${randomBytes(12).toString("hex")}`,
    teamId: options.teamId ?? "team_double",
    projectId: options.projectId ?? "prj_double",
  };
  const base = options.directory ?? (await mkdtemp(join(tmpdir(), "outpost-vercel-double-")));
  let createDelayMs = 0;
  const registry = new SandboxRegistry(base, () => createDelayMs);
  const faults = new FaultPlan(CODES);
  const latency = new Latency(options.latencyMs ?? 0);
  let sequence = 0;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://double");
    const method = request.method ?? "GET";
    if (request.headers.authorization !== `Bearer ${credentials.token}`) {
      throw new DoubleRefusal(401, "unauthorized", "The bearer token is missing or invalid.");
    }
    if (url.searchParams.get("teamId") !== credentials.teamId)
      throw new DoubleRefusal(403, "forbidden", "The token has no access to this team.");
    const parts = url.pathname
      .split("/")
      .filter((part) => part !== "")
      .map(decodeURIComponent);
    if (parts[1] !== "sandboxes" || (parts[0] !== "v2" && parts[0] !== "v3"))
      throw new DoubleRefusal(404, "not_found", `No route ${url.pathname}.`);
    const rest = parts.slice(2);
    if (rest.length === 0) {
      if (method === "POST") return registry.create(request, response, credentials.projectId);
      if (method === "GET") return registry.list(response);
    }
    if (rest[0] === "sessions" && rest[1] !== undefined) return sessionRoute(rest[1], rest.slice(2), method, url, request, response);
    if (rest.length === 1 && rest[0] !== "sessions" && rest[0] !== "snapshots" && rest[0] !== "drives") {
      if (method === "GET") return registry.get(rest[0]!, url.searchParams.get("resume") === "true", response);
      if (method === "DELETE") return registry.remove(rest[0]!, response);
    }
    throw new DoubleRefusal(
      404,
      "not_found",
      `The double does not implement ${method} ${url.pathname} (see the README's covered surface).`,
    );
  }

  async function sessionRoute(
    id: string,
    rest: string[],
    method: string,
    url: URL,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const { sandbox, session } = registry.findSession(id);
    const route = `${method} ${rest.join("/")}`;
    if (route === "GET ") return sendJson(response, 200, { session: sessionJson(session), routes: [] });
    if (route === "POST stop") {
      await sandbox.stop();
      return sendJson(response, 200, { session: sessionJson(session) });
    }
    if (route === "POST extend-timeout") {
      const body = await readJson(request);
      if (typeof body.duration !== "number" || body.duration <= 0)
        throw new DoubleRefusal(400, "bad_request", "`duration` must be a positive number.");
      session.timeout += body.duration;
      session.arm();
      return sendJson(response, 200, { session: sessionJson(session) });
    }
    if (session.status !== "running") throw new DoubleRefusal(410, "sandbox_stopped", `Session ${id} is ${session.status}.`);
    if (route === "POST cmd") return startCommand(session, request, response);
    if (route === "POST fs/write") return writeFiles(sandbox, request, response);
    if (route === "POST fs/read") return readFileRoute(sandbox, request, response);
    if (route === "POST fs/mkdir") return makeDirectory(sandbox, request, response);
    if (rest[0] === "cmd" && rest[1] !== undefined) {
      const command = session.commands.get(rest[1]);
      if (command === undefined) throw new DoubleRefusal(404, "command_not_found", `No command ${rest[1]}.`);
      if (method === "GET" && rest.length === 2) return getCommand(session, command, url.searchParams.get("wait") === "true", response);
      if (method === "GET" && rest[2] === "logs") return commandLogs(session, command, response);
      if (method === "POST" && rest[2] === "kill") return killCommand(session, command, request, response);
    }
    throw new DoubleRefusal(
      404,
      "not_found",
      `The double does not implement ${method} sessions/${id}/${rest.join("/")} (see the README's covered surface).`,
    );
  }

  const served = await startDoubleServer({
    handle,
    refuse: sendRefusal,
    requestId: { header: "x-vercel-id", value: () => `double1::${(++sequence).toString(36)}-${Date.now()}` },
    faults,
    latency,
  });
  const url = served.origin;
  const doubleFetch: typeof globalThis.fetch = (input, init) => {
    const target = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return globalThis.fetch(target.startsWith(VERCEL_API) ? url + target.slice(VERCEL_API.length) : target, init);
  };
  return {
    url,
    fetch: doubleFetch,
    credentials,
    requests: served.requests,
    roundTrips: served.roundTrips,
    receivedBytes: served.receivedBytes,
    setLatency: (delayMs) => latency.set(delayMs),
    fault: (fault) => faults.add(fault),
    slowCreate: (delayMs) => void (createDelayMs = delayMs),
    vanish: async (name) => {
      const sandbox = registry.find(name);
      await sandbox.destroy();
    },
    sandboxes: () => [...registry.byName.values()].filter((sandbox) => !sandbox.gone).map((sandbox) => sandbox.settings.name),
    directoryOf: (name) => registry.find(name).directory,
    close: async () => {
      for (const sandbox of registry.byName.values()) await sandbox.destroy().catch(() => undefined);
      await served.close();
      if (options.directory === undefined) await rm(base, { recursive: true, force: true });
    },
  };
}
