import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeTransport } from "@outpost/testkit";
import { localJournalTransport } from "../src/journal/local-transport.js";

describeTransport({
  name: "local journal storage",
  create: async () => {
    const root = await mkdtemp(join(tmpdir(), "outpost-journal-transport-"));
    return { transport: localJournalTransport(root), dispose: () => rm(root, { recursive: true, force: true }) };
  },
});
