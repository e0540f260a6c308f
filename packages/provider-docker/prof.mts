import { dockerProvider } from "./src/index.js";
import { ExecProcess } from "./src/exec-process.js";
import { encodeRequest } from "./src/exec-request.js";
const provider = dockerProvider({ image: "outpost-busybox:latest", mode: "isolated", network: "none" });
const lease: any = await provider.acquire({ repository: "/tmp/perf-ws", directory: "/tmp/perf-ws", gitDirectories: [], variables: {} });
lease.standby.close();
for (let i = 0; i < 8; i++) {
  const p = await ExecProcess.spawn(lease.container);
  await new Promise((r) => setTimeout(r, 500));
  const t0 = performance.now();
  p.run(encodeRequest({ directory: "/", argv: ["true"] }), { onStdout: () => {}, onStderr: () => {} });
  p.closeStdin();
  await p.started; const t1 = performance.now();
  await (p as any).delivered; 
  const s = await p.exited; const t2 = performance.now();
  console.log(`header ${(t1 - t0).toFixed(1)} exited ${(t2 - t1).toFixed(1)} status ${s}`);
}
await lease.release();
