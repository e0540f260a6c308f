import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** Fixed test credentials: moto accepts any, and tests can check that errors never show them. */
export const MOTO_CREDENTIALS = { accessKeyId: "AKIAOUTPOSTTESTKEY01", secretAccessKey: "outpost-test-secret-never-shown-0123456789" };

/** Settings an S3 client needs to talk to the server; shaped to pass straight to `new S3Client(...)`. */
export interface MotoClientSettings {
  readonly endpoint: string;
  readonly region: string;
  readonly forcePathStyle: true;
  readonly credentials: typeof MOTO_CREDENTIALS;
  readonly maxAttempts: number;
  readonly requestHandler: { readonly requestTimeout: number; readonly throwOnRequestTimeout: true };
}

/** A real moto_server on a free loopback port, for the life of one test file. */
export interface MotoServer {
  readonly endpoint: string;
  readonly process: ChildProcess;
  clientSettings(options?: { requestTimeout?: number; credentials?: typeof MOTO_CREDENTIALS }): MotoClientSettings;
  /** Creates a bucket with an unsigned request (moto's default accepts it). */
  createBucket(name: string): Promise<void>;
  /** Runs `cleanup` (e.g. destroying clients) before the server stops. */
  onStop(cleanup: () => void): void;
  stop(): Promise<void>;
}

/** MOTO_SERVER, when set, is the only candidate; otherwise the pyenv shim, then the PATH. */
function motoExecutable(): string {
  if (process.env.MOTO_SERVER) return process.env.MOTO_SERVER;
  return existsSync("/root/.pyenv/shims/moto_server") ? "/root/.pyenv/shims/moto_server" : "moto_server";
}

/** `environment` adds variables, e.g. INITIAL_NO_AUTH_ACTION_COUNT=0 to make moto check credentials. */
export async function startMotoServer(environment: Record<string, string> = {}): Promise<MotoServer> {
  const port = await freePort();
  const child = spawn(motoExecutable(), ["-H", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...environment },
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const failed = new Promise<never>((_, reject) => child.once("error", reject));
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await Promise.race([waitReady(endpoint, child), failed]);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`moto_server did not start on ${endpoint}: ${(error as Error).message} ${stderr.trim()}`, { cause: error });
  }
  const cleanups: (() => void)[] = [];
  return {
    endpoint,
    process: child,
    clientSettings: (options = {}) => ({
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: options.credentials ?? MOTO_CREDENTIALS,
      maxAttempts: 2,
      requestHandler: { requestTimeout: options.requestTimeout ?? 30_000, throwOnRequestTimeout: true },
    }),
    createBucket: async (name) => {
      const response = await fetch(`${endpoint}/${encodeURIComponent(name)}`, { method: "PUT", signal: AbortSignal.timeout(30_000) });
      const body = await response.text();
      if (!response.ok) throw new Error(`moto_server refused to create bucket ${name}: ${response.status} ${body.slice(0, 200)}`);
    },
    onStop: (cleanup) => {
      cleanups.push(cleanup);
    },
    stop: async () => {
      for (const cleanup of cleanups.splice(0)) cleanup();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGCONT"); // a test may have paused it
        child.kill("SIGTERM");
        await Promise.race([exited, sleep(5_000).then(() => child.kill("SIGKILL"))]);
      }
    },
  };
}

async function waitReady(endpoint: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`it exited with status ${child.exitCode}`);
    try {
      const response = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error("it was not ready after 20 s");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
