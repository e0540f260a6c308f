import type { Server, Socket } from "node:net";

/**
 * Counts the bytes a server has read from its clients (request lines, headers, bodies, websocket frames),
 * so an API double can tell a test or a benchmark how much a client really sent. Counted on the sockets,
 * not the requests, because an HTTP server may read a socket without emitting its data.
 */
export function receivedBytesOf(server: Server): () => number {
  const open = new Set<Socket>();
  let closed = 0;
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      closed += socket.bytesRead;
    });
  });
  return () => {
    let total = closed;
    for (const socket of open) total += socket.bytesRead;
    return total;
  };
}
