import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { receivedBytesOf } from "../src/received-bytes.js";

describe("receivedBytesOf: what a server read from its clients", () => {
  it("counts request bodies on open and on closed connections, headers included", async () => {
    const server = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.end("ok"));
    });
    const received = receivedBytesOf(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      expect(received()).toBe(0);
      await (await fetch(url, { method: "POST", body: new Uint8Array(100_000) })).text();
      const afterOne = received();
      expect(afterOne).toBeGreaterThanOrEqual(100_000);
      expect(afterOne).toBeLessThan(101_000);
      await (await fetch(url, { method: "POST", body: "x".repeat(10), headers: { connection: "close" } })).text();
      expect(received() - afterOne).toBeGreaterThanOrEqual(10);
      expect(received() - afterOne).toBeLessThan(1_000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
