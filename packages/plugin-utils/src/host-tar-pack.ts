import { execFile, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { OutpostError } from "@outpost/core";
import type { HostTreeEntry } from "./host-tree.js";
import { TailBuffer } from "./tail-buffer.js";

let gnuTar: Promise<boolean> | undefined;

/**
 * Whether the host's `tar` is GNU tar 1.29 or later (`--verbatim-files-from` came with 1.29), whose options
 * `packWithHostTar` uses; asked once per process. Any other tar, or none, leaves packing to tar-stream.
 */
export function hostTarCanPack(): Promise<boolean> {
  gnuTar ??= new Promise((resolve) => {
    execFile("tar", ["--version"], { env: tarEnvironment(), timeout: 10_000 }, (error, stdout) =>
      resolve(error === null && packsWithHostTar(stdout)),
    );
  });
  return gnuTar;
}

/** Whether `tar --version` printed this names a GNU tar new enough for `packWithHostTar`. */
export function packsWithHostTar(version: string): boolean {
  const found = /^tar \(GNU tar\) (\d+)\.(\d+)/m.exec(version);
  if (found === null) return false;
  const [major, minor] = [Number(found[1]), Number(found[2])];
  return major > 1 || (major === 1 && minor >= 29);
}

export interface HostTarPackOptions {
  readonly uid?: number;
  readonly gid?: number;
  /** Ends the tar process (the archive then fails). */
  readonly signal?: AbortSignal;
}

/**
 * Streams the scanned `entries` of the host directory `top` as a tar made by the host's GNU tar, each under
 * its own path: the same archive `packHostEntries` writes (owner, permission bits only, no hard links, links
 * kept as links), some five times faster for a tree of many small files. Only the listed entries are
 * packed, never recursed into, so the scan's refusals hold. A file that vanished or changed while it was
 * read fails the archive (`finished`), as tar exits non-zero.
 */
export function packWithHostTar(
  top: string,
  entries: readonly HostTreeEntry[],
  options: HostTarPackOptions = {},
): { archive: Readable; finished: Promise<void> } {
  const child = spawn(
    "tar",
    [
      "--create",
      "--file=-",
      "--format=gnu",
      `--owner=:${options.uid ?? 0}`,
      `--group=:${options.gid ?? 0}`,
      "--numeric-owner",
      // Only the permission bits travel (transferMode): no set-id or sticky bit.
      "--mode=a-st",
      "--hard-dereference",
      "--no-recursion",
      "--null",
      "--verbatim-files-from",
      // Last: GNU tar's options are positional after a list of names.
      "--files-from=-",
    ],
    { cwd: top, env: tarEnvironment(), stdio: ["pipe", "pipe", "pipe"], ...(options.signal ? { signal: options.signal } : {}) },
  );
  const stderr = new TailBuffer(4096);
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  // A list write that fails (tar died first) shows up as tar's exit status.
  child.stdin.on("error", () => undefined);
  child.stdin.end(entries.map((entry) => `${entry.path}\0`).join(""));
  const finished = new Promise<void>((resolve, reject) => {
    child.on("error", (error) => reject(packFailure(top, error.message, error)));
    child.on("close", (status, signal) => {
      if (status === 0) resolve();
      else
        reject(packFailure(top, `tar ${signal === null ? `exited with ${status}` : `was killed by ${signal}`}: ${stderr.text().trim()}`));
    });
  });
  finished.catch(() => undefined);
  return { archive: child.stdout, finished };
}

/** No TAR_OPTIONS or locale from the user's environment: the archive does not depend on them. */
function tarEnvironment(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" };
}

function packFailure(top: string, reason: string, cause?: unknown): OutpostError {
  return new OutpostError(
    "workspace",
    `Could not pack ${JSON.stringify(top)} for the sandbox (${reason}). Check that its files are readable and not changing during the transfer, then retry.`,
    { details: { source: top }, ...(cause === undefined ? {} : { cause }) },
  );
}
