import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { localProvider } from "@outpost/provider-local";
import { fixturePair, type FixturePair } from "@outpost/testkit";
import { kimiConversationStore } from "../src/index.js";

// Both layouts from their public descriptions: the store picks the one the session is present in.
const KIMI_CODE = fileURLToPath(new URL("./fixtures/sessions/kimi", import.meta.url));
const KIMI_CLI = fileURLToPath(new URL("./fixtures/sessions/kimi-cli", import.meta.url));

describe("kimiConversationStore picks the layout from the home", () => {
  let pair: FixturePair | undefined;
  afterEach(async () => pair?.dispose());

  it("a Kimi Code session (~/.kimi-code) is captured and restored as Kimi Code's", async () => {
    pair = await fixturePair(KIMI_CODE, { provider: (home) => localProvider({ home }) });
    const record = await kimiConversationStore().capture(pair.recording.id, pair.source.context());
    expect(record.format).toBe("kimi");
  });

  it("an older Kimi CLI session (~/.kimi) is captured as kimi-cli and restored with its work dir in kimi.json", async () => {
    pair = await fixturePair(KIMI_CLI, { provider: (home) => localProvider({ home }) });
    const store = kimiConversationStore();
    const record = await store.capture(pair.recording.id, pair.source.context());
    expect(record.format).toBe("kimi-cli");
    expect((await store.locate(pair.recording.id, pair.source.lease.root, pair.source.context().home)).format).toBe("kimi-cli");
    await store.restore(record, pair.target.context());
    const index = JSON.parse(await readFile(join(pair.target.lease.home, ".kimi", "kimi.json"), "utf8")) as {
      work_dirs: { path: string; last_session_id: string }[];
      session_to_workdir: Record<string, string>;
    };
    expect(index.work_dirs).toEqual([{ path: pair.target.lease.root, last_session_id: pair.recording.id }]);
    expect(index.session_to_workdir).toEqual({ [pair.recording.id]: pair.target.lease.root });
    // The packed conversation comes back through the store of its own layout.
    const bytes = await store.pack(record);
    expect((await store.unpack(pair.recording.id, bytes, pair.target.lease.root, join(pair.target.base, "unpacked"))).format).toBe(
      "kimi-cli",
    );
  });

  it("by option, one layout only: a Kimi CLI session is not found by the Kimi Code store", async () => {
    pair = await fixturePair(KIMI_CLI, { provider: (home) => localProvider({ home }) });
    const error = await kimiConversationStore({ layout: "kimi-code" })
      .capture(pair.recording.id, pair.source.context())
      .then(
        () => undefined,
        (caught: unknown) => caught as { code: string },
      );
    expect(error?.code).toBe("session");
  });
});
