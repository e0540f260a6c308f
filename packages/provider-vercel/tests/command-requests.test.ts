import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble } from "@outpost/cloud-doubles/vercel";
import { useApiDouble } from "@outpost/testkit/faults";

const fixture = useApiDouble("vercel-command-requests", startVercelDouble);

/** The JSON bodies of the command requests `run` makes, read off the SDK's fetch. */
async function commandBodies(run: (fetch: typeof globalThis.fetch) => Promise<void>): Promise<{ args: string[]; env: object }[]> {
  const bodies: { args: string[]; env: object }[] = [];
  await run(async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (/\/cmd(\?|$)/.test(url) && typeof init?.body === "string") bodies.push(JSON.parse(init.body) as { args: string[]; env: object });
    return fixture.double.fetch(input, init);
  });
  return bodies;
}

// A re-sync is measured in bytes (issue 36): each command names one installed script and carries no HOME the
// sandbox already has, yet every process still sees the lease's home.
describe("vercel command requests", () => {
  it("let every process see the lease's home, over a HOME the context asked for", async () => {
    let seen: string[] = [];
    const bodies = await commandBodies(async (fetch) => {
      const provider = vercelProvider({ ...fixture.double.credentials, fetch });
      const plain = await provider.acquire(fixture.context);
      const asked = await provider.acquire({ ...fixture.context, variables: { HOME: "/somewhere/else" } });
      try {
        const homes = await Promise.all(
          [plain, asked].map((lease) => lease.invoke({ executable: "/bin/sh", arguments: ["-c", 'printf %s "$HOME"'] })),
        );
        seen = [homes[0]!.stdout, plain.home, homes[1]!.stdout, asked.home];
      } finally {
        await Promise.all([plain.release(), asked.release()]);
      }
    });
    expect(seen[0]).toBe(seen[1]);
    expect(seen[2]).toBe(seen[3]);
    expect(bodies.filter((body) => body.args.includes('printf %s "$HOME"'))).toHaveLength(2);
  });

  it("name a transfer script by one installed path and carry no HOME the sandbox already has", async () => {
    const host = await mkdtemp(join(tmpdir(), "outpost-vercel-requests-"));
    try {
      await writeFile(join(host, "one.txt"), "one\n");
      const bodies = await commandBodies(async (fetch) => {
        const lease = await vercelProvider({ ...fixture.double.credentials, fetch }).acquire(fixture.context);
        try {
          await lease.upload(host, `${lease.root}/tree`);
          const entries = await lease.fileTransfers!.manifest(`${lease.root}/tree`, ["."]);
          expect(entries.map((entry) => entry.path)).toEqual(["one.txt"]);
        } finally {
          await lease.release();
        }
      });
      const manifest = bodies.find((body) => body.args[0]?.endsWith("/manifest"));
      expect(manifest?.args.slice(1, 3)).toEqual(["/", "-"]);
      expect(manifest?.args).toHaveLength(5);
      // The sandbox's own HOME is the lease's home: a transfer script does not carry it.
      expect(manifest?.env).toEqual({});
    } finally {
      await rm(host, { recursive: true, force: true });
    }
  });
});
