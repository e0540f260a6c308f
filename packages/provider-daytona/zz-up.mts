import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { daytonaProvider } from "./src/index.js";
import { startDaytonaDouble } from "./src/double/index.js";
const double = await startDaytonaDouble();
const provider = daytonaProvider(double.credentials);
const src = mkdtempSync("/tmp/zzsrc-");
for (let d = 0; d < 100; d++) { mkdirSync(`${src}/d${d}`); for (let f = 0; f < 100; f++) writeFileSync(`${src}/d${d}/f${f}.txt`, "x".repeat(1000)); }
const empty = mkdtempSync("/tmp/zzd-");
const lease = await provider.acquire({ repository: empty, directory: empty, gitDirectories: [], variables: {} } as any);
const n0 = double.requests.length;
const t = performance.now();
const start = Date.now();
await lease.upload(src, "up");
console.log("upload", (performance.now() - t).toFixed(0));
console.log(double.requests.slice(n0).map(r => r.replace(/[0-9a-f-]{36}/g, "ID")).join("\n").slice(0, 3000));
await lease.release(); await double.close();
