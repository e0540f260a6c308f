import { dockerProvider } from "./src/index.js";
const provider = dockerProvider({ image: "outpost-busybox:latest", mode: "isolated", network: "none" });
const lease = await provider.acquire({ repository: "/tmp/perf-ws", directory: "/tmp/perf-ws", gitDirectories: [], variables: {} });
try {
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const r = await lease.invoke({ executable: "sh", arguments: ["-c", "echo \"hi $A '$1'\"; cat; echo err >&2; exit 3", "x y"], stdin: "in'put\n", variables: { A: "v'al\nue" } });
    console.log((performance.now() - t).toFixed(1), JSON.stringify(r));
  }
  const r2 = await lease.invoke({ executable: "sh", arguments: ["-c", "ls -la ~/.t ~/.t/a; cat ~/.t/a/s.json; cat ~/top"], homeFiles: [{ path: ".t/a/s.json", content: "{\"x\":1}\n" }, { path: "top", content: "a\0b" }] });
  console.log(JSON.stringify(r2));
  await lease.invoke({ executable: "ln", arguments: ["-s", "/etc", `${lease.home}/.evil`] });
  const r3 = await lease.invoke({ executable: "true", homeFiles: [{ path: ".evil/passwd", content: "x" }] }).catch((e) => e);
  console.log(String(r3), r3.code);
  await lease.invoke({ executable: "ln", arguments: ["-s", "/tmp/nowhere", `${lease.home}/f`] });
  const r4 = await lease.invoke({ executable: "true", homeFiles: [{ path: "f", content: "x" }] }).catch((e) => e);
  console.log(String(r4), r4.code);
  console.log(String(await lease.invoke({ executable: "nonexist" }).catch((e) => e)));
  console.log(String(await lease.invoke({ executable: "true", directory: "/nope" }).catch((e) => e)));
  const weird = await lease.invoke({ executable: "sh", arguments: ["-c", "env | grep -c weird"], variables: { "we.ird": "1" } });
  console.log(JSON.stringify(weird));
} finally {
  await lease.release();
}
