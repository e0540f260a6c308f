// The Vercel provider against @vercel/sandbox used by hand, both on the offline API double with 40 ms injected
// per request, in the same run (issue 36's goals: acquire + one command + release ≤ 1.15× the least the same
// work needs by hand, with the serial round trips of each side; a 2,000-file upload ≤ 1.1×; a one-file re-sync
// ≤ 5% of the full upload's bytes). Prints medians and ratios; asserts nothing.
// Run: npm run bench -w @outpost/provider-vercel   (OUTPOST_BENCH_ROUNDS and OUTPOST_BENCH_UPLOAD_ROUNDS, default 5)
import { Sandbox } from "@vercel/sandbox";
import { runRemoteProviderBench, usePrivateTmpdir } from "@outpost/testkit/bench";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble } from "@outpost/cloud-doubles/vercel";

// Both sides' sandboxes and the host tree in memory: disk allocation swings (see usePrivateTmpdir) would
// decide the upload row otherwise.
usePrivateTmpdir("outpost-vercel-bench-", { inMemory: true });
const double = await startVercelDouble({ latencyMs: Number(process.env.OUTPOST_BENCH_LATENCY_MS ?? 40) });
const sdk = { ...double.credentials, fetch: double.fetch };
try {
  await runRemoteProviderBench({
    name: "vercel",
    provider: vercelProvider(sdk),
    receivedBytes: () => double.receivedBytes(),
    roundTrips: double.roundTrips,
    files: 2_000,
    rounds: Number(process.env.OUTPOST_BENCH_ROUNDS ?? 5),
    uploadRounds: Number(process.env.OUTPOST_BENCH_UPLOAD_ROUNDS ?? 5),
    raw: {
      roundTrip: async () => {
        const sandbox = await Sandbox.create(sdk);
        await sandbox.runCommand("true");
        await sandbox.delete();
      },
      // A lease reports its home at once: the API does not say it, one command learns it.
      leaseMinimum: async () => {
        const sandbox = await Sandbox.create(sdk);
        await (await sandbox.runCommand("/bin/sh", ["-c", 'printf %s "$HOME"'])).stdout();
        await sandbox.runCommand("true");
        await sandbox.delete();
      },
      uploader: async () => {
        const sandbox = await Sandbox.create(sdk);
        return {
          root: sandbox.cwd,
          upload: (files, destination) =>
            sandbox.writeFiles(files.map((file) => ({ path: `${destination}/${file.path}`, content: file.content }))),
          dispose: () => sandbox.delete(),
        };
      },
    },
  });
} finally {
  await double.close();
}
