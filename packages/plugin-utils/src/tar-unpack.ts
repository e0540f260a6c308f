import type { Readable } from "node:stream";
import { ArchiveStaging, type StagedEntry, type StagingMeter } from "./archive-staging.js";
import { readTarBuffer } from "./tar-buffer.js";
import { tarStream } from "./tar-stream-module.js";

export type { StagedEntry, StagingMeter } from "./archive-staging.js";

/**
 * Writes a tar stream from the sandbox into `staging` (a fresh host directory) in one pass, by the rules of
 * `ArchiveStaging`. The caller commits the result once the whole archive was accepted.
 * `rename` maps an archive name to the path to stage it at (e.g. a single file's new name); `meter` counts
 * each file and link before it is written, and refuses the archive by throwing.
 */
export async function unpackToStaging(
  archive: Readable,
  staging: string,
  check: () => void,
  rename?: (name: string) => string,
  meter?: StagingMeter,
): Promise<StagedEntry[]> {
  const stage = new ArchiveStaging(staging, rename, meter);
  const extract = tarStream().extract();
  const done = (async () => {
    for await (const entry of extract) {
      check();
      const file = stage.begin(entry.header);
      if (file === undefined) {
        entry.resume();
        continue;
      }
      let complete = false;
      try {
        for await (const chunk of entry as AsyncIterable<Buffer>) stage.writeChunk(file, chunk);
        complete = true;
      } finally {
        stage.finishFile(file, complete);
      }
    }
  })();
  archive.on("error", (error) => extract.destroy(error));
  archive.pipe(extract);
  await done;
  return stage.entries();
}

/**
 * The same for an archive already in memory (one that came inline in a command's output): read by
 * `readTarBuffer` in one synchronous loop, which spares the stream machinery per entry.
 */
export function unpackBufferToStaging(archive: Buffer, staging: string, check: () => void, meter?: StagingMeter): StagedEntry[] {
  const stage = new ArchiveStaging(staging, undefined, meter);
  for (const { header, data } of readTarBuffer(archive)) {
    check();
    const file = stage.begin(header);
    if (file === undefined) continue;
    let complete = false;
    try {
      stage.writeChunk(file, data);
      complete = true;
    } finally {
      stage.finishFile(file, complete);
    }
  }
  return stage.entries();
}
