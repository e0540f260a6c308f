import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError, type OutpostError } from "@outpost/core";
import { downloadFromSandbox, FileApiChannel, type FileApiPlatform, uploadToSandbox } from "../src/index.js";
import { hostProcessPlatform } from "./support/host-process-platform.js";

let base: string;
let sequence = 0;

function sandbox() {
  return {
    root: join(base, "root"),
    home: join(base, "home"),
    scratch: join(base, "scratch"),
    nextName: (prefix: string) => `${prefix}-${++sequence}`,
    assertUsable: () => undefined,
  };
}

async function failure(operation: Promise<unknown>): Promise<OutpostError> {
  const error = await operation.then(
    () => expect.fail("the operation was accepted"),
    (reason: unknown) => reason,
  );
  expect(isOutpostError(error), String(error)).toBe(true);
  return error as OutpostError;
}

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "outpost-file-api-channel-"));
  for (const directory of ["root", "home", "scratch", "host"]) await mkdir(join(base, directory));
  await mkdir(join(base, "root", "tree", "sub"), { recursive: true });
  await writeFile(join(base, "root", "tree", "sub", "file"), "from the sandbox\n");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("FileApiChannel", () => {
  it("runs the real transfer scripts through the platform's runner both ways and removes its scratch archive", async () => {
    const platform = hostProcessPlatform();
    const channel = new FileApiChannel(sandbox(), platform);
    await writeFile(join(base, "host", "up"), "to the sandbox\n");
    await uploadToSandbox(channel, join(base, "host", "up"), "arrived");
    expect(await readFile(join(base, "root", "arrived"), "utf8")).toBe("to the sandbox\n");
    await downloadFromSandbox(channel, "tree", join(base, "host", "back"));
    expect(await readFile(join(base, "host", "back", "sub", "file"), "utf8")).toBe("from the sandbox\n");
    expect(platform.removed).toHaveLength(1);
    expect(platform.removed[0]).toMatch(/scratch\/out-\d+\.tar$/);
    expect(await readdir(join(base, "scratch"))).toEqual([]);
  });

  it("names its API connection and reads a file API that answers with a Buffer as well as a stream", async () => {
    const platform = hostProcessPlatform({ readFile: async (path) => readFile(path) });
    const channel = new FileApiChannel(sandbox(), platform);
    expect(channel.connection).toBe("the connection to the Test API");
    await downloadFromSandbox(channel, "tree", join(base, "host", "back"));
    expect(await readFile(join(base, "host", "back", "sub", "file"), "utf8")).toBe("from the sandbox\n");
  });

  it("a file-API failure is the platform's mapped error with its cause", async () => {
    const cause = Object.assign(new Error("HTTP 503"), { status: 503 });
    const channel = new FileApiChannel(sandbox(), hostProcessPlatform({ readFile: () => Promise.reject(cause) }));
    const error = await failure(downloadFromSandbox(channel, "tree", join(base, "host", "back")));
    expect(error.code).toBe("provider");
    expect(error.message).toMatch(/the Test API failed/);
    expect(error.cause).toBe(cause);
    expect(await readdir(join(base, "host"))).toEqual([]);
  });

  it("the guard's abort wins over the file API's failure it caused, and an aborted operation leaves the scratch alone", async () => {
    const controller = new AbortController();
    const platform = hostProcessPlatform({
      readFile: (_path, signal) => {
        controller.abort(new Error("the caller gave up"));
        return Promise.reject(Object.assign(new Error("request aborted"), { aborted: signal.aborted }));
      },
    });
    const error = await failure(
      downloadFromSandbox(new FileApiChannel(sandbox(), platform), "tree", join(base, "host", "back"), { signal: controller.signal }),
    );
    expect(error.code).toBe("aborted");
    expect(platform.removed).toEqual([]);
  });

  it("an archive that vanished is a workspace refusal, a corrupt one a provider error naming the connection", async () => {
    const vanished = new FileApiChannel(sandbox(), hostProcessPlatform({ readFile: async () => null }));
    const gone = await failure(downloadFromSandbox(vanished, "tree", join(base, "host", "a")));
    expect(gone.code).toBe("workspace");
    expect(gone.message).toMatch(/vanished before it was read/);
    const corrupt: Partial<FileApiPlatform> = { readFile: async () => Readable.from([Buffer.alloc(700, 7)]) };
    const error = await failure(
      downloadFromSandbox(new FileApiChannel(sandbox(), hostProcessPlatform(corrupt)), "tree", join(base, "host", "b")),
    );
    expect(error.code).toBe("provider");
    expect(error.message).toMatch(/check the connection to the Test API/);
  });

  it("a script's refusal (a path through a link) is a workspace error before the file API is asked", async () => {
    let asked = false;
    const platform = hostProcessPlatform({ readFile: async () => ((asked = true), null) });
    const error = await failure(downloadFromSandbox(new FileApiChannel(sandbox(), platform), "missing", join(base, "host", "c")));
    expect(error.code).toBe("workspace");
    expect(asked).toBe(false);
  });
});
