// The Daytona provider against @daytonaio/sdk used by hand, both on the offline API double with 40 ms injected
// per request and per log-stream message, in the same run (issue 36's goals: acquire + one command + release
// ≤ 1.15× the least the same work needs by hand, with the serial round trips of each side; a 2,000-file upload
// ≤ 1.1×; a one-file re-sync ≤ 5% of the full upload's bytes). Prints medians and ratios; asserts nothing.
// Run: npm run bench -w @outpost/provider-daytona   (OUTPOST_BENCH_ROUNDS and OUTPOST_BENCH_UPLOAD_ROUNDS, default 5)
import { execFileSync } from "node:child_process";
import { Daytona } from "@daytonaio/sdk";
import { runRemoteProviderBench, usePrivateTmpdir } from "@outpost/testkit/bench";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";

// Both sides' sandboxes and the host tree in memory: disk allocation swings (see usePrivateTmpdir) would
// decide the upload row otherwise. The double's paths are the host's, so the lease's default folder
// (/tmp/outpost-…) would put the provider's uploads on disk and the raw ones in memory: its root goes to the
// same memory folder (its lease scratch, one archive file per upload, stays in /tmp: that costs the provider).
const memory = usePrivateTmpdir("outpost-daytona-bench-", { inMemory: true });
const double = await startDaytonaDouble({ latencyMs: Number(process.env.OUTPOST_BENCH_LATENCY_MS ?? 40) });
// The same client settings as the provider: polling, so no event socket keeps the process alive.
const daytona = new Daytona({ ...double.credentials, useDeprecatedPolling: true });
try {
  await runRemoteProviderBench({
    name: "daytona",
    provider: daytonaProvider({ ...double.credentials, root: `${memory}/lease-roots` }),
    receivedBytes: () => double.receivedBytes(),
    roundTrips: double.roundTrips,
    files: 2_000,
    rounds: Number(process.env.OUTPOST_BENCH_ROUNDS ?? 5),
    uploadRounds: Number(process.env.OUTPOST_BENCH_UPLOAD_ROUNDS ?? 5),
    raw: {
      roundTrip: async () => {
        const sandbox = await daytona.create();
        await sandbox.process.executeCommand("true");
        await sandbox.delete();
      },
      // A lease reports its home at once and has a root of its own (never the home), keeps stdout and stderr
      // apart (only session commands do), and runs the executable `true`, not the shell's builtin.
      leaseMinimum: async () => {
        const sandbox = await daytona.create();
        const root = `/tmp/raw-${sandbox.id}/workspace`;
        await Promise.all([sandbox.getUserHomeDir(), sandbox.fs.createFolder(root, "755"), sandbox.process.createSession("minimum")]);
        await sandbox.process.executeSessionCommand("minimum", { command: "/bin/true </dev/null" });
        await sandbox.delete();
      },
      uploader: async () => {
        const sandbox = await daytona.create();
        const root = await sandbox.getWorkDir();
        if (root === undefined) throw new Error("the raw sandbox reported no working directory");
        return {
          root,
          // One multipart part per file does not scale to 10,000 files (the SDK's form takes seconds per
          // thousand), so the floor is what one writes by hand: one archive, one upload, one extraction.
          upload: async (_files, destination, source) => {
            const archive = execFileSync("tar", ["-cf", "-", "-C", source, "."], { maxBuffer: 1 << 30 });
            await sandbox.fs.uploadFile(archive, `${destination}.tar`);
            // Through sh: the daemon's /process/execute splits the line itself and runs no shell
            // (daytonaio/daytona apps/daemon/pkg/toolbox/process/execute.go, parseCommand), so `&&` needs one.
            const extracted = await sandbox.process.executeCommand(
              `sh -c "mkdir -p ${destination} && tar -xf ${destination}.tar -C ${destination}"`,
            );
            if (extracted.exitCode !== 0) throw new Error(`tar -x failed: ${extracted.result}`);
          },
          dispose: () => sandbox.delete(),
        };
      },
    },
  });
} finally {
  await double.close();
}
