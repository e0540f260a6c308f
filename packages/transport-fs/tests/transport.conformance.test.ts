import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeTransport } from "@outpost/testkit";
import { fsTransport } from "../src/index.js";

describeTransport({
  name: "fs",
  create: async () => {
    const directory = await mkdtemp(join(tmpdir(), "outpost-transport-fs-"));
    return { transport: fsTransport({ directory }), dispose: () => rm(directory, { recursive: true, force: true }) };
  },
});
