import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { Latency } from "../framework/latency.js";
import type { CommandLog, LogEntry } from "./command-log.js";

// The daemon's framing of a session command's log stream: each labelled line starts with its stream's marker
// (STDOUT_PREFIX_BYTES / STDERR_PREFIX_BYTES in @daytonaio/sdk 0.218 `esm/Process.js`).
const STDOUT_MARKER = Buffer.from([0x01, 0x01, 0x01]);
const STDERR_MARKER = Buffer.from([0x02, 0x02, 0x02]);
/**
 * Every this many lines, a frame ends right after the line's marker and its text follows in the next frame:
 * the daemon sends what its tailer read, so frame edges fall anywhere, right after a marker too. That edge is
 * the one the SDK's demultiplexer (`esm/utils/Stream.js`) mishandles: it lets marker bytes into the output,
 * and before the first recognised marker it drops the text.
 */
const MARKER_EDGE_EVERY = 5;

/** When the double cuts log streams (a proxy's idle timeout, a flaky network). */
export interface StreamDrops {
  /** Cut each stream this long after it opened (its command may still run). */
  readonly afterMs: number;
}

/**
 * Serves `GET …/command/{id}/logs?follow=true` as the daemon does: a websocket of binary frames, each line
 * with its stream's marker, replaying what was logged so far, closing once the command exited. Each message
 * is late by the injected latency; a stream may be cut before its command ended (`drops`).
 */
export class LogSockets {
  private readonly server = new WebSocketServer({ noServer: true });
  private readonly open = new Set<WebSocket>();

  constructor(
    private readonly latency: Latency,
    private cuts: StreamDrops | undefined,
  ) {}

  drops(cuts: StreamDrops | undefined): void {
    this.cuts = cuts;
  }

  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, command: CommandLog): void {
    this.server.handleUpgrade(request, socket, head, (ws) => {
      this.open.add(ws);
      let lines = 0;
      const send = (frame: Buffer) => this.latency.later(() => ws.readyState === ws.OPEN && ws.send(frame));
      const stop = command.follow((entry: LogEntry | undefined) => {
        if (entry === undefined) return this.latency.later(() => ws.close(1000, "command exited"));
        const marker = entry.stream === "stdout" ? STDOUT_MARKER : STDERR_MARKER;
        if (++lines % MARKER_EDGE_EVERY === 0) {
          send(marker);
          send(entry.data);
        } else send(Buffer.concat([marker, entry.data]));
      });
      const cut = this.cuts === undefined ? undefined : setTimeout(() => ws.terminate(), this.cuts.afterMs);
      ws.on("close", () => {
        clearTimeout(cut);
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
