// A separate process that takes a lock when its parent says "go", proves nobody else is inside, and
// reports back. Used to race many real processes for one lock.
import { open, rm } from "node:fs/promises";
import { join } from "node:path";
import { withFileLock } from "../../src/workspace/file-lock.js";

const [lockPath, directory] = process.argv.slice(2) as [string, string];
const inside = join(directory, "inside");

process.on("message", async (message: { round: number }) => {
  let overlap = false;
  await withFileLock(
    lockPath,
    async () => {
      // Exclusive creation fails if another contender is inside at the same time.
      const handle = await open(inside, "wx").catch(() => undefined);
      if (!handle) {
        overlap = true;
        return;
      }
      await handle.close();
      await new Promise((done) => setTimeout(done, 1));
      await rm(inside);
    },
    { waitMs: 60_000 },
  );
  process.send!({ round: message.round, overlap });
});
process.send!({ ready: true });
