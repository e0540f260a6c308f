import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A real redis-server on a free loopback port, persisting to its own folder so a restart keeps every key. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  readonly directory: string;
  process(): ChildProcess;
  /** Stops the server (SIGTERM, or SIGKILL with `hard`) and starts it again on the same port and data. */
  restart(options?: { readonly hard?: boolean; readonly downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** Default "noeviction", what a queue needs; anything else lets tests check the refusal. */
  readonly maxmemoryPolicy?: string;
  /** REDIS_SERVER, else `redis-server` on the PATH. */
  readonly executable?: string;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), "outpost-redis-"));
  const executable = options.executable ?? process.env.REDIS_SERVER ?? "redis-server";
  // Every write is fsynced to the append-only file: a hard kill loses nothing, as a queue's Redis should.
  const arguments_ = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    directory,
    "--save",
    "",
    "--appendonly",
    "yes",
    "--appendfsync",
    "always",
    "--maxmemory-policy",
    options.maxmemoryPolicy ?? "noeviction",
    "--protected-mode",
    "yes",
  ];
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(executable, arguments_, { stdio: ["ignore", "ignore", "pipe"] });
    const failed = new Promise<never>((_, reject) => child.once("error", reject));
    await Promise.race([waitReady(port, child), failed]);
  };
  const halt = async (signal: NodeJS.Signals) => {
    // This server, not whichever one `child` names by the time a timer fires: a restart replaces it.
    const server = child;
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
    server.kill("SIGCONT");
    server.kill(signal);
    const overdue = setTimeout(() => server.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(overdue);
  };
  try {
    await launch();
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`redis-server (${executable}) did not start on port ${port}: ${(error as Error).message}`, { cause: error });
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    directory,
    process: () => child,
    restart: async ({ hard = false, downMs = 0 } = {}) => {
      await halt(hard ? "SIGKILL" : "SIGTERM");
      if (downMs > 0) await sleep(downMs);
      await launch();
    },
    stop: async () => {
      await halt("SIGTERM");
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function waitReady(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`it exited with status ${child.exitCode}`);
    if (await pingAnswers(port)) return;
    await sleep(50);
  }
  throw new Error("it did not answer PING within 20 s");
}

/** True when the server answers PING (and is not still loading its data). */
function pingAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let answer = "";
    socket.setTimeout(1_000, () => socket.destroy());
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      answer += chunk.toString();
      if (answer.includes("\r\n")) socket.end();
    });
    socket.on("close", () => resolve(answer.startsWith("+PONG")));
    socket.on("error", () => resolve(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
