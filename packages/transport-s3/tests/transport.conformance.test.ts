import { randomUUID } from "node:crypto";
import { afterAll } from "vitest";
import { describeTransport, transportAbortTests, transportRemoveTests, vitestRunner } from "@outpost/testkit";
import { s3Transport } from "../src/index.js";
import { s3Gate } from "@outpost/testkit/gates";
import { s3Client } from "./s3-client.js";

const { server, unavailable } = await s3Gate();
afterAll(() => server?.stop());
if (server) await server.createBucket("outpost-conformance");

// Each case gets its own key prefix in one bucket: a fresh, empty transport.
describeTransport({
  name: "s3 (moto_server, default tombstone remove mode)",
  unavailable,
  create: async () => ({
    transport: s3Transport({ client: s3Client(server!), bucket: "outpost-conformance", prefix: `case-${randomUUID()}` }),
  }),
});

// moto checks If-Match on DeleteObject but not atomically with a concurrent conditional PUT (the kit's
// "remove racing a rewrite" case catches it), so this mode runs only the groups it can pass on moto.
if (server) {
  vitestRunner.describe("transport conformance: s3 (moto_server, conditional-delete remove mode)", () => {
    const context = {
      runner: vitestRunner,
      create: async () => ({
        transport: s3Transport({
          client: s3Client(server),
          bucket: "outpost-conformance",
          prefix: `delete-${randomUUID()}`,
          removeMode: "conditional-delete",
        }),
      }),
    };
    vitestRunner.describe("remove", () => transportRemoveTests(context));
    vitestRunner.describe("abort", () => transportAbortTests(context));
  });
}
