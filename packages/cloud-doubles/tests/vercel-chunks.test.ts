import { Sandbox } from "@vercel/sandbox";
import { Writable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startVercelDouble, type VercelDouble } from "@outpost/cloud-doubles/vercel";

let double: VercelDouble;
beforeAll(async () => void (double = await startVercelDouble()));
afterAll(() => double.close());

it("vercel double: sends raw UTF-8 cut inside a character, which the SDK's line parser garbles", async () => {
  const sandbox = await Sandbox.create({ ...double.credentials, fetch: double.fetch });
  try {
    let text = "";
    const stdout = new Writable({ write: (chunk: Buffer | string, _encoding, done) => void ((text += String(chunk)), done()) });
    const finished = await sandbox.runCommand({ cmd: "printf", args: ["é ✓ 😀"], stdout });
    expect(finished.exitCode).toBe(0);
    expect(text).toContain("\uFFFD");
  } finally {
    await sandbox.delete();
  }
});
