import { Daytona } from "@daytonaio/sdk";
import { startDaytonaDouble } from "./src/double/index.js";
const double = await startDaytonaDouble();
for (let i = 0; i < 5; i++) {
  let t = performance.now();
  const d = new Daytona({ ...double.credentials, useDeprecatedPolling: true });
  const a = performance.now() - t; t = performance.now();
  const s = await d.create();
  const b = performance.now() - t; t = performance.now();
  await Promise.all([s.getUserHomeDir(), s.getWorkDir(), s.process.createSession("x" + i), s.fs.createFolder("/tmp/zz" + i, "700")]);
  const c = performance.now() - t; t = performance.now();
  await s.process.executeCommand("true");
  const e = performance.now() - t; t = performance.now();
  const r = await s.process.executeSessionCommand("x" + i, { command: "true", runAsync: false });
  const f = performance.now() - t; t = performance.now();
  await s.delete();
  console.log(`new ${a.toFixed(1)} create ${b.toFixed(1)} round ${c.toFixed(1)} exec ${e.toFixed(1)} sessionSync ${f.toFixed(1)} ${JSON.stringify(r)} delete ${(performance.now()-t).toFixed(1)}`);
}
await double.close();
