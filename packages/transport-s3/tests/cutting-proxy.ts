import { createServer, connect, type Server, type Socket } from "node:net";

/** A TCP proxy on 127.0.0.1 in front of moto that a test controls: cut a request mid-body, take the link down, slow it. */
export interface CuttingProxy {
  readonly endpoint: string;
  /** The next connection that sends more than `bytes` towards the store is cut there (both sides reset). */
  cutAfter(bytes: number): Promise<void>;
  /** While down, every new connection is reset at once and open ones are cut. */
  setDown(down: boolean): void;
  /** Bytes per second towards the store for every connection from now on (undefined: no limit). */
  throttle(bytesPerSecond: number | undefined): void;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let cut: { bytes: number; done: () => void } | undefined;
  let down = false;
  let rate: number | undefined;
  const server: Server = createServer((client) => {
    if (down) return void client.resetAndDestroy();
    const upstream = connect(Number(port), hostname);
    open.add(client);
    const drop = () => {
      open.delete(client);
      client.resetAndDestroy();
      upstream.destroy();
    };
    client.on("error", drop);
    upstream.on("error", drop);
    client.on("close", drop);
    upstream.on("close", () => client.end());
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    let sent = 0;
    client.on("data", (chunk: Buffer) => {
      sent += chunk.byteLength;
      if (cut && sent > cut.bytes) {
        const armed = cut;
        cut = undefined;
        drop();
        armed.done();
        return;
      }
      upstream.write(chunk);
      if (rate !== undefined) {
        // Reads pause for as long as the chunk takes at the rate: the sender's writes back up.
        client.pause();
        setTimeout(() => client.resume(), (chunk.byteLength / rate) * 1_000);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no port");
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    cutAfter: (bytes) => new Promise((done) => (cut = { bytes, done })),
    setDown: (value) => {
      down = value;
      if (value) for (const socket of open) socket.resetAndDestroy();
    },
    throttle: (value) => {
      rate = value;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
