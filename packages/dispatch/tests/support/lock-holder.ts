// Takes a lock and holds it until killed: stands for a dispatch that crashes while holding a lock,
// on the host or inside a container.
import { acquireFileLock } from "../../src/workspace/file-lock.js";

const lock = await acquireFileLock(process.argv[2]!, { waitMs: 10_000 });
process.stdout.write(`held ${lock.path}\n`);
setInterval(() => undefined, 60_000);
