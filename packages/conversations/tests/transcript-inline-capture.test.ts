import { spawn } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError, type Command, type SandboxLease } from "@outpost/core";
import { describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { transcriptStore } from "../src/index.js";
import { withDockerLease } from "./docker-lease.js";
import { demoTranscript, transcriptLine } from "./demo-transcript.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

// A transcript without a sidecar folder, up to 1 MiB, comes back with the script that locates it (issue 19):
// one sandbox command instead of locate, download and recheck, with the same refusals.
const ID = "1a2b3c4d-0000-4000-8000-00000000abcd";
const INLINE_LIMIT = 1024 * 1024;
const store = transcriptStore(demoTranscript);
const gated = await dockerGate({ images: [TEST_IMAGE] });

/** The lease with its commands and transfers counted. */
function counted(lease: SandboxLease): { lease: SandboxLease; calls: string[] } {
  const calls: string[] = [];
  const wrapped = new Proxy(lease, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === "invoke") return (command: Command) => (calls.push(`invoke ${command.executable}`), target.invoke(command));
      if (property === "download" || property === "upload")
        return (...args: unknown[]) => (calls.push(String(property)), (value as (...given: unknown[]) => unknown).apply(target, args));
      return typeof value === "function" ? (value as (...given: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { lease: wrapped, calls };
}

async function writeIn(lease: SandboxLease, path: string, content: string): Promise<void> {
  const result = await lease.invoke({
    executable: "sh",
    arguments: ["-c", 'mkdir -p "$(dirname "$1")" && cat > "$1" && chmod 640 "$1"', "write", path],
    stdin: content,
  });
  expect(result.status, result.stderr).toBe(0);
}

describeGated("transcript capture in one sandbox command (Docker)", gated, () => {
  let host: TestSandbox;
  beforeEach(async () => {
    host = await localSandbox("repo");
  });
  afterEach(async () => {
    await host.dispose();
  });
  const contextOf = (lease: SandboxLease) => ({ repository: host.workspace, sandbox: lease, staging: join(host.base, "staging") });

  it("a transcript without sidecar is captured byte for byte by one command; its mode is kept", async () => {
    await withDockerLease(async (lease) => {
      const text = Array.from({ length: 200 }, (_, index) => transcriptLine(index, lease.root, lease.home)).join("");
      await writeIn(lease, `${lease.home}/.demo-transcript/sessions/workspace/${ID}.jsonl`, text);
      const probe = counted(lease);
      const record = await store.capture(ID, contextOf(probe.lease));
      expect(probe.calls).toEqual(["invoke node"]);
      expect(await readFile(record.file, "utf8")).toBe(text);
      expect((await stat(record.file)).mode & 0o777).toBe(0o640);
    });
  }, 120_000);

  it("over 1 MiB, or with a sidecar folder, it is downloaded and rechecked as before, intact", async () => {
    await withDockerLease(async (lease) => {
      const big = "x".repeat(INLINE_LIMIT) + "\n";
      await writeIn(lease, `${lease.home}/.demo-transcript/sessions/workspace/${ID}.jsonl`, big);
      const probe = counted(lease);
      const record = await store.capture(ID, contextOf(probe.lease));
      expect(probe.calls).toContain("download");
      expect((await readFile(record.file, "utf8")).length).toBe(big.length);
      await writeIn(lease, `${lease.home}/.demo-transcript/sessions/workspace/${ID}.jsonl`, "small\n");
      await writeIn(lease, `${lease.home}/.demo-transcript/sessions/workspace/${ID}/side.json`, "{}");
      const again = counted(lease);
      const withSidecar = await store.capture(ID, contextOf(again.lease));
      expect(again.calls).toContain("download");
      expect(await readFile(join(withSidecar.file, "..", ID, "side.json"), "utf8")).toBe("{}");
    });
  }, 120_000);

  it("refuses, by the single command, a transcript that is a symbolic link or a hard link", async () => {
    await withDockerLease(async (lease) => {
      const folder = `${lease.home}/.demo-transcript/sessions/workspace`;
      const planted = await lease.invoke({
        executable: "sh",
        arguments: ["-c", `mkdir -p '${folder}' && ln -s /etc/passwd '${folder}/${ID}.jsonl'`],
      });
      expect(planted.status).toBe(0);
      const linked = await store.capture(ID, contextOf(lease)).catch((error: unknown) => error);
      expect(isOutpostError(linked) && linked.code, String(linked)).toBe("workspace");
      await lease.invoke({
        executable: "sh",
        arguments: [
          "-c",
          `rm '${folder}/${ID}.jsonl' && echo x > '${lease.home}/other' && ln '${lease.home}/other' '${folder}/${ID}.jsonl'`,
        ],
      });
      const hard = await store.capture(ID, contextOf(lease)).catch((error: unknown) => error);
      expect(isOutpostError(hard) && hard.code, String(hard)).toBe("workspace");
    });
  }, 120_000);
});

describe("transcript capture in one step (host placement, in-process)", () => {
  let source: TestSandbox;
  beforeEach(async () => {
    source = await localSandbox("repo");
  });
  afterEach(async () => {
    await source.dispose();
  });
  const transcriptOf = () => join(source.lease.home, ".demo-transcript", "sessions", "repo", `${ID}.jsonl`);

  it("a transcript that keeps growing while it is read is refused (code session), never half captured", async () => {
    const { mkdir, writeFile } = await import("node:fs/promises");
    await mkdir(join(transcriptOf(), ".."), { recursive: true });
    await writeFile(transcriptOf(), transcriptLine(0, source.lease.root, source.lease.home).repeat(2000));
    const writer = spawn(
      process.execPath,
      ["-e", `const fs=require("fs");for(;;){fs.appendFileSync(${JSON.stringify(transcriptOf())},"{}\\n")}`],
      {
        stdio: "ignore",
      },
    );
    try {
      // Under load the writer may start late: capture only once the file is really growing.
      const { stat } = await import("node:fs/promises");
      const initial = (await stat(transcriptOf())).size;
      while ((await stat(transcriptOf())).size === initial) await new Promise((resolve) => setTimeout(resolve, 10));
      // A writer descheduled for the whole read (a loaded machine) lets one capture see a stable file: that
      // capture must then hold a whole earlier state of the file. One of a few attempts must be refused.
      let refusal: unknown;
      for (let attempt = 0; attempt < 5 && refusal === undefined; attempt++) {
        const outcome = await store.capture(ID, source.context()).then(
          (record) => ({ record }),
          (caught: unknown) => ({ caught }),
        );
        if ("caught" in outcome) refusal = outcome.caught;
        else {
          const captured = await readFile(outcome.record.file, "utf8");
          expect((await readFile(transcriptOf(), "utf8")).startsWith(captured)).toBe(true);
          expect(captured.endsWith("\n")).toBe(true);
        }
      }
      expect(isOutpostError(refusal) && refusal.code, String(refusal)).toBe("session");
      expect((refusal as Error).message).toMatch(/changed while/);
    } finally {
      writer.kill("SIGKILL");
    }
  });

  it("captures a small transcript without a sidecar with no transfer at all", async () => {
    const { mkdir, writeFile } = await import("node:fs/promises");
    await mkdir(join(transcriptOf(), ".."), { recursive: true });
    const text = transcriptLine(1, source.lease.root, source.lease.home);
    await writeFile(transcriptOf(), text);
    const probe = counted(source.lease);
    const record = await store.capture(ID, { ...source.context(), sandbox: probe.lease });
    expect(probe.calls.filter((call) => call === "download")).toEqual([]);
    expect(await readFile(record.file, "utf8")).toBe(text);
  });
});
