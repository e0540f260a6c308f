import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, posix } from "node:path";
import { DoubleRefusal, readBody, readJson } from "./double-http.js";
import type { DoubleSandbox } from "./double-sandbox.js";

/** POST /files/bulk-upload: multipart fields `files[i].path` and `files[i].file`; each file lands whole (temp + rename). */
export async function bulkUpload(sandbox: DoubleSandbox, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(request.headers["content-type"] ?? "");
  if (boundary === null) throw new DoubleRefusal(400, "BAD_REQUEST", "bulk-upload needs a multipart/form-data body.");
  const parts = parseMultipart(await readBody(request), boundary[1] ?? boundary[2]!);
  const paths = new Map<string, string>();
  const files = new Map<string, Buffer>();
  for (const part of parts) {
    const field = /^files\[(\d+)\]\.(path|file)$/.exec(part.name);
    if (field === null) throw new DoubleRefusal(400, "BAD_REQUEST", `Unexpected form field ${JSON.stringify(part.name)}.`);
    if (field[2] === "path") paths.set(field[1]!, part.content.toString("utf8"));
    else files.set(field[1]!, part.content);
  }
  // Written in the order the client listed them, as the daemon does.
  for (const [index, path] of [...paths.entries()].sort((left, right) => Number(left[0]) - Number(right[0]))) {
    const content = files.get(index);
    if (content === undefined) throw new DoubleRefusal(400, "BAD_REQUEST", `files[${index}].file is missing.`);
    const target = posix.resolve(sandbox.workDir, path);
    sandbox.made(await mkdir(dirname(target), { recursive: true }));
    const staged = `${target}.outpost-double-${randomBytes(4).toString("hex")}`;
    await writeFile(staged, content);
    await rename(staged, target).catch(async (error: unknown) => {
      await rm(staged, { force: true });
      throw new DoubleRefusal(400, "BAD_REQUEST", `Cannot write ${path}: ${(error as Error).message}`);
    });
  }
  response.writeHead(200, { "content-length": 0 });
  response.end();
}

/**
 * POST /files/folder?path=&mode=: the daemon's `os.MkdirAll(path, mode)` (mode octal, default 755; parents
 * made too, with the same mode less the umask); 201 with no body, 400 when the path is missing, the mode is
 * not octal or the directory cannot be made.
 */
export async function createFolder(sandbox: DoubleSandbox, query: URLSearchParams, response: ServerResponse): Promise<void> {
  const path = query.get("path");
  if (path === null || path === "") throw new DoubleRefusal(400, "BAD_REQUEST", "path is required");
  const modeText = query.get("mode") ?? "";
  if (modeText !== "" && !/^[0-7]{1,4}$/.test(modeText)) throw new DoubleRefusal(400, "BAD_REQUEST", "invalid mode format");
  const mode = modeText === "" ? 0o755 : Number.parseInt(modeText, 8);
  const made = await mkdir(posix.resolve(sandbox.workDir, path), { recursive: true, mode }).catch((error: unknown) => {
    throw new DoubleRefusal(400, "BAD_REQUEST", (error as Error).message);
  });
  sandbox.made(made);
  response.writeHead(201, { "content-length": 0 });
  response.end();
}

/** POST /files/bulk-download: `{ paths }` → multipart/form-data, a `file` part per path or an `error` part. */
export async function bulkDownload(sandbox: DoubleSandbox, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request);
  const paths = body.paths;
  if (!Array.isArray(paths) || paths.some((path) => typeof path !== "string")) {
    throw new DoubleRefusal(400, "BAD_REQUEST", "paths must be an array of strings.");
  }
  const boundary = `outpost-double-${randomBytes(8).toString("hex")}`;
  const chunks: Buffer[] = [];
  for (const path of paths as string[]) {
    const target = posix.resolve(sandbox.workDir, path);
    const content = await readFile(target).catch(() => undefined);
    const field = content === undefined ? "error" : "file";
    const payload = content ?? Buffer.from(JSON.stringify({ message: `file not found: ${path}`, statusCode: 404, code: "FILE_NOT_FOUND" }));
    const type = content === undefined ? "application/json" : "application/octet-stream";
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${path}"\r\nContent-Type: ${type}\r\nContent-Length: ${payload.length}\r\n\r\n`,
      ),
      payload,
      Buffer.from("\r\n"),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const all = Buffer.concat(chunks);
  response.writeHead(200, { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": all.length });
  response.end(all);
}

interface Part {
  readonly name: string;
  readonly content: Buffer;
}

function parseMultipart(body: Buffer, boundary: string): Part[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let position = body.indexOf(delimiter);
  while (position !== -1) {
    const start = position + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const headerEnd = body.indexOf("\r\n\r\n", start);
    const next = body.indexOf(Buffer.concat([Buffer.from("\r\n"), delimiter]), headerEnd);
    if (headerEnd === -1 || next === -1) throw new DoubleRefusal(400, "BAD_REQUEST", "Malformed multipart body.");
    const headers = body.subarray(start, headerEnd).toString("utf8");
    const name = /;\s*name="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined) throw new DoubleRefusal(400, "BAD_REQUEST", "A multipart part has no name.");
    parts.push({ name, content: body.subarray(headerEnd + 4, next) });
    position = next + 2;
  }
  return parts;
}
