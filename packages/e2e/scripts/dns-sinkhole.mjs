// A DNS tripwire for offline test runs: listens on 127.0.0.1:53 (UDP and TCP), appends every queried name
// to the log file given as first argument, and answers REFUSED, so nothing can resolve a remote host.
import { appendFileSync, writeFileSync } from "node:fs";
import { createSocket } from "node:dgram";
import { createServer } from "node:net";

const log = process.argv[2];
if (!log) throw new Error("usage: dns-sinkhole.mjs <log file>");
writeFileSync(log, "");

function questionName(message) {
  const labels = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset];
    if (length === 0 || length === undefined || length > 63) break;
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString("latin1"));
    offset += length + 1;
  }
  return labels.join(".") || "<unparsable>";
}

function refused(query) {
  const reply = Buffer.from(query.subarray(0, Math.max(12, query.length)));
  if (reply.length < 12) return reply;
  reply[2] = 0x80 | (query[2] & 0x01); // QR=1, keep RD
  reply[3] = 0x05; // RCODE=REFUSED
  reply.writeUInt16BE(0, 6); // no answers
  reply.writeUInt16BE(0, 8);
  reply.writeUInt16BE(0, 10);
  return reply;
}

const udp = createSocket("udp4");
udp.on("message", (message, peer) => {
  appendFileSync(log, `${new Date().toISOString()} udp ${questionName(message)}\n`);
  udp.send(refused(message), peer.port, peer.address);
});
udp.bind(53, "127.0.0.1");

const tcp = createServer((socket) => {
  socket.once("data", (data) => {
    const message = data.subarray(2);
    appendFileSync(log, `${new Date().toISOString()} tcp ${questionName(message)}\n`);
    const reply = refused(message);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(reply.length);
    socket.end(Buffer.concat([length, reply]));
  });
  socket.on("error", () => undefined);
});
tcp.listen(53, "127.0.0.1", () => process.stdout.write("dns-sinkhole ready\n"));
