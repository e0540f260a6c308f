/**
 * Source of the script agent's executable: a small Node program that behaves like a coding-agent CLI.
 * It prints JSON lines, keeps its conversation under $HOME/.script-agent, writes and commits a file, and
 * prints the end marker. Behaviour comes from SCRIPT_AGENT_* variables so tests can make it hang, stay
 * busy, spawn a child, fail, or run a shell script (SHELL) before committing.
 */
export const SCRIPT_AGENT_SOURCE = String.raw`
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";

const env = process.env;
const print = (event) => process.stdout.write(JSON.stringify(event) + "\n");
const args = process.argv.slice(2);
const resumeIndex = args.indexOf("--resume");
const resumed = resumeIndex >= 0 ? args[resumeIndex + 1] : undefined;
const prompt = args[args.length - 1] ?? "";
const home = env.HOME;
const sessions = join(home, ".script-agent", "sessions");
mkdirSync(sessions, { recursive: true });
const namedIndex = args.indexOf("--session-id");
const id = resumed ?? (namedIndex >= 0 ? args[namedIndex + 1] : undefined) ?? randomUUID();
const session = join(sessions, id + ".jsonl");
if (resumed && !existsSync(session)) {
  process.stderr.write("No conversation found with id " + resumed + "\n");
  process.exit(3);
}
// A CLI that names its conversation up front but saves it only later (the window steering can stop it in).
if (!resumed && env.SCRIPT_AGENT_SAVE_DELAY_MS) await new Promise((done) => setTimeout(done, Number(env.SCRIPT_AGENT_SAVE_DELAY_MS)));
const history = existsSync(session) ? readFileSync(session, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line)) : [];
const counter = join(home, ".script-agent", "passes");
const pass = (existsSync(counter) ? Number(readFileSync(counter, "utf8")) : 0) + 1;
writeFileSync(counter, String(pass));
appendFileSync(session, JSON.stringify({ role: "user", text: prompt, cwd: process.cwd() }) + "\n");

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
if (env.SCRIPT_AGENT_CHILD_PID_FILE) {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  writeFileSync(env.SCRIPT_AGENT_CHILD_PID_FILE, String(child.pid));
}
if (env.SCRIPT_AGENT_HANG === "silent") {
  await sleep(3_600_000);
}
print({ type: "conversation", id });
if (env.SCRIPT_AGENT_PRINT_ENVIRONMENT) {
  // A hostile or careless agent: everything it can see ends up in its answer and its transcript.
  const seen = Object.entries(env).map(([name, value]) => name + "=" + value).join("\n");
  appendFileSync(session, JSON.stringify({ role: "assistant", text: seen }) + "\n");
  print({ type: "text", text: seen });
}
const settings = join(home, ".script-agent", "settings.json");
if (existsSync(settings)) {
  // Reports the modes Outpost gave the home file it wrote, so tests can check them.
  print({ type: "settings", mode: (statSync(settings).mode & 0o777).toString(8), directoryMode: (statSync(join(home, ".script-agent")).mode & 0o777).toString(8) });
}
if (env.SCRIPT_AGENT_DELAY_MS) await sleep(Number(env.SCRIPT_AGENT_DELAY_MS));
if (env.SCRIPT_AGENT_SHELL) {
  // A hostile agent's tool call: whatever shell script the test gives, in the sandbox.
  const output = execFileSync("sh", ["-c", env.SCRIPT_AGENT_SHELL], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  print({ type: "tool-result", output });
  print({ type: "text", text: output });
}
const file = env.SCRIPT_AGENT_FILE;
if (file) {
  const content = (env.SCRIPT_AGENT_CONTENT ?? "written by the script agent") + "\n";
  print({ type: "tool", name: "write", input: { path: file } });
  writeFileSync(file, content);
  execFileSync("git", ["add", "--", file]);
  execFileSync("git", ["commit", "--quiet", "-m", "script agent: " + file]);
  print({ type: "tool-result", output: "committed " + file });
}
const markerOn = env.SCRIPT_AGENT_MARKER ?? "always";
const marker = markerOn === "always" || markerOn === String(pass) ? " <outpost>done</outpost>" : "";
const seen = history.filter((entry) => entry.role === "user").map((entry) => entry.text);
const text = "pass " + pass + " saw " + seen.length + " earlier prompt(s)" + (seen.length ? ": " + JSON.stringify(seen) : "") + marker;
appendFileSync(session, JSON.stringify({ role: "assistant", text }) + "\n");
print({ type: "text", text });
if (env.SCRIPT_AGENT_HANG === "busy") {
  for (;;) { print({ type: "progress" }); await sleep(50); }
}
if (env.SCRIPT_AGENT_HANG === "after-marker") await sleep(3_600_000);
if (env.SCRIPT_AGENT_EXIT && env.SCRIPT_AGENT_EXIT !== "0") {
  process.stderr.write("script agent failing on purpose\n");
  process.exit(Number(env.SCRIPT_AGENT_EXIT));
}
print({ type: "result", text, usage: { input: 10, output: 5 } });
`;
