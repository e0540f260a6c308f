import { createReadStream } from "node:fs";
import { chmod, mkdir, rename, stat, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, join, posix } from "node:path";

let staging = 0;
import { createGunzip } from "node:zlib";
import { extract } from "tar-stream";
import { DoubleRefusal, readBody, readJson, optionalString } from "./double-request.js";
import type { DoubleSandbox } from "./double-sandbox.js";

/** POST fs/write: a gzipped tar of files, extracted relative to the `x-cwd` header (absolute). */
export async function writeFiles(sandbox: DoubleSandbox, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (!String(request.headers["content-type"] ?? "").includes("application/gzip")) {
    throw new DoubleRefusal(400, "bad_request", "fs/write expects content-type application/gzip.");
  }
  const base = String(request.headers["x-cwd"] ?? "");
  if (!posix.isAbsolute(base)) throw new DoubleRefusal(400, "bad_request", "fs/write needs an absolute x-cwd header.");
  const body = await readBody(request);
  const unpack = extract();
  const done = (async () => {
    for await (const entry of unpack) {
      const { name, type, mode } = entry.header;
      const target = posix.resolve(base, name);
      if (type === "directory") {
        await mkdir(target, { recursive: true });
        entry.resume();
        continue;
      }
      if (type !== "file") throw new DoubleRefusal(400, "bad_request", `fs/write accepts files only, got ${type} ${name}.`);
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      await mkdir(dirname(target), { recursive: true });
      // Written beside and renamed: a reader in the sandbox never sees a half-written file or a missing mode.
      const staged = join(dirname(target), `.outpost-double-${process.pid}-${++staging}`);
      await writeFile(staged, Buffer.concat(chunks));
      if (mode !== undefined) await chmod(staged, mode & 0o7777);
      await rename(staged, target);
    }
  })();
  const gunzip = createGunzip();
  gunzip.on("error", (error) => unpack.destroy(error));
  gunzip.pipe(unpack);
  gunzip.end(body);
  try {
    await done;
  } catch (error) {
    if (error instanceof DoubleRefusal) throw error;
    throw new DoubleRefusal(400, "bad_request", `fs/write could not extract the archive: ${(error as Error).message}`);
  }
  sandbox.updatedAt = Date.now();
  response.writeHead(200, { "content-type": "application/json" });
  response.end("{}");
}

/** POST fs/read: the file's bytes as application/octet-stream, 404 when it does not exist. */
export async function readFileRoute(sandbox: DoubleSandbox, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request);
  const path = optionalString(body, "path");
  if (path === undefined || path === "") throw new DoubleRefusal(400, "bad_request", "fs/read needs a `path`.");
  const target = posix.resolve(optionalString(body, "cwd") ?? sandbox.cwd, path);
  const info = await stat(target).catch(() => undefined);
  if (info === undefined) throw new DoubleRefusal(404, "file_not_found", `${path} does not exist.`);
  if (!info.isFile()) throw new DoubleRefusal(400, "bad_request", `${path} is not a file.`);
  response.writeHead(200, { "content-type": "application/octet-stream", "content-length": info.size });
  createReadStream(target).pipe(response);
}

/** POST fs/mkdir: one directory (its parent must exist). */
export async function makeDirectory(sandbox: DoubleSandbox, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request);
  const path = optionalString(body, "path");
  if (path === undefined || path === "") throw new DoubleRefusal(400, "bad_request", "fs/mkdir needs a `path`.");
  const target = posix.resolve(optionalString(body, "cwd") ?? sandbox.cwd, path);
  await mkdir(target).catch((error: NodeJS.ErrnoException) => {
    throw new DoubleRefusal(400, "bad_request", `fs/mkdir ${path}: ${error.code ?? error.message}`);
  });
  response.writeHead(200, { "content-type": "application/json" });
  response.end("{}");
}
