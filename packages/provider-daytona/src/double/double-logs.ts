import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { CommandLog, LogEntry } from "./command-log.js";

// The daemon's framing of a session command's log stream: each run of bytes starts with its stream's marker.
const STDOUT_MARKER = Buffer.from([0x01, 0x01, 0x01]);
const STDERR_MARKER = Buffer.from([0x02, 0x02, 0x02]);

/**
 * Serves `GET …/command/{id}/logs?follow=true` as the daemon does: a websocket of binary frames, each
 * a stream marker then the bytes, replaying what was logged so far, closing once the command exited.
 */
export class LogSockets {
  private readonly server = new WebSocketServer({ noServer: true });
  private readonly open = new Set<WebSocket>();

  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, command: CommandLog): void {
    this.server.handleUpgrade(request, socket, head, (ws) => {
      this.open.add(ws);
      const stop = command.follow((entry: LogEntry | undefined) => {
        if (entry === undefined) {
          ws.close(1000, "command exited");
          return;
        }
        ws.send(Buffer.concat([entry.stream === "stdout" ? STDOUT_MARKER : STDERR_MARKER, entry.data]));
      });
      ws.on("close", () => {
        stop();
        this.open.delete(ws);
      });
      ws.on("error", () => ws.terminate());
    });
  }

  /** Cuts every open stream and stops serving. */
  close(): Promise<void> {
    for (const ws of this.open) ws.terminate();
    this.open.clear();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
