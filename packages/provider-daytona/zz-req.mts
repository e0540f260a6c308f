import { Daytona } from "@daytonaio/sdk";
import { daytonaProvider } from "./src/index.js";
import { startDaytonaDouble } from "./src/double/index.js";
const double = await startDaytonaDouble();
const daytona = new Daytona({ ...double.credentials, useDeprecatedPolling: true });
const provider = daytonaProvider(double.credentials);
for (let i = 0; i < 2; i++) {
  const n0 = double.requests.length; let t = performance.now();
  const s = await daytona.create(); await s.process.executeCommand("true"); await s.delete();
  console.log("raw", (performance.now()-t).toFixed(1), double.requests.slice(n0).join(" | "));
  const n1 = double.requests.length; t = performance.now();
  const dir = (await import("node:fs")).mkdtempSync("/tmp/zzd-"); const lease = await provider.acquire({ repository: dir, directory: dir, gitDirectories: [], variables: {} } as any);
  const ta = performance.now();
  await lease.invoke({ executable: "true" });
  const tb = performance.now();
  await lease.release();
  console.log("outpost", (performance.now()-t).toFixed(1), `acq ${(ta-t).toFixed(1)} inv ${(tb-ta).toFixed(1)} rel ${(performance.now()-tb).toFixed(1)}`);
  console.log(double.requests.slice(n1).join("\n"));
}
await double.close();
