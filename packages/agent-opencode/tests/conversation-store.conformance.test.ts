import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { localProvider } from "@outpost/provider-local";
import { describeConversationStore } from "@outpost/testkit";
import { opencodeConversationStore } from "../src/index.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/opencode", import.meta.url));
const OPENCODE = fileURLToPath(new URL("../../../node_modules/.bin/opencode", import.meta.url));

// The kit's round trip and hostile ids, on a recorded opencode session (imported into the source database).
describeConversationStore({
  store: opencodeConversationStore({ executable: OPENCODE }),
  fixture: FIXTURE,
  provider: (home) => localProvider({ home }),
  async seed({ recording, source }) {
    const recorded = await readFile(join(FIXTURE, "export", `${recording.id}.json`), "utf8");
    const file = join(source.base, "seed", "export.json");
    await mkdir(join(source.base, "seed"), { recursive: true });
    await writeFile(file, recorded.split("/tmp/outpost-fixture").join(source.base));
    const variables = { OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_SHARE: "1" };
    const imported = await source.lease.invoke({ executable: OPENCODE, arguments: ["import", file], variables, deadlineMs: 120_000 });
    if (imported.status !== 0) throw new Error(`opencode import failed: ${imported.stderr}`);
  },
});
