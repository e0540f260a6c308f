import assert from "node:assert/strict";
import type { CommandChannel } from "@outpost/core";
import { leaseCheck, type ProviderSuiteContext } from "./provider-suite-context.js";
import { shell } from "./sandbox-shell.js";

// Each multibyte character is printed in two parts with a pause between, once per cut offset, so the
// platform's chunks (pipe reads, HTTP chunks, WebSocket frames, log lines) end inside it at every offset.
const SPLIT_CHARACTERS: readonly string[] = ["é", "✓", "😀"];
const PAUSE = "sleep 0.05 2>/dev/null || sleep 1";

/** The sh script printing `parts` on stdout (`>&2` for stderr), pausing between parts. */
function splitScript(channel: CommandChannel): { script: string; bytes: Buffer } {
  const parts: Buffer[] = [Buffer.from("nul:\0:")];
  for (const character of SPLIT_CHARACTERS) {
    const bytes = Buffer.from(character);
    for (let cut = 1; cut < bytes.length; cut++) parts.push(bytes.subarray(0, cut), bytes.subarray(cut));
  }
  // An invalid byte and no final newline: a platform that labels lines must not add one.
  parts.push(Buffer.from([0x20, 0x62, 0x61, 0x64, 0x3a, 0xff, 0x20, 0x65, 0x6e, 0x64]));
  const redirect = channel === "stderr" ? " >&2" : "";
  const script = parts.map((part) => `printf '${octal(part)}'${redirect}; ${PAUSE}`).join("; ");
  return { script, bytes: Buffer.concat(parts) };
}

function octal(bytes: Buffer): string {
  return [...bytes].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
}

const LONG_LINES = 30;

/** Output that must arrive whole: characters split at every offset, and output that goes on after a pause. */
export function providerOutputFidelityTests(context: ProviderSuiteContext): void {
  leaseCheck(
    context,
    "keeps output byte-exact when multibyte characters arrive split at every byte offset (NUL, an invalid byte, no final newline)",
    async ({ lease }) => {
      const out = splitScript("stdout");
      const err = splitScript("stderr");
      const observed: Record<CommandChannel, string> = { stdout: "", stderr: "" };
      const result = await shell(lease, `${out.script}; ${err.script}`, [], {
        observe: (channel, text) => (observed[channel] += text),
      });
      assert.equal(result.status, 0, result.stderr);
      const expected = { stdout: out.bytes.toString("utf8"), stderr: err.bytes.toString("utf8") };
      for (const channel of ["stdout", "stderr"] as const) {
        assert.equal(
          result[channel],
          expected[channel],
          `${channel} differs (a character split between chunks, a lost NUL, an added newline?)`,
        );
        assert.equal(observed[channel], expected[channel], `observe saw different ${channel} text (a character split between chunks?)`);
      }
    },
  );

  leaseCheck(
    context,
    "delivers all the output of a command that goes on after a pause (a dropped output stream is not its end)",
    async ({ lease }) => {
      const lines = Array.from({ length: LONG_LINES }, (_, index) => `line ${index} ✓\n`).join("");
      const script = `i=0; while [ $i -lt ${LONG_LINES} ]; do printf 'line %s ✓\\n' $i; i=$((i+1)); sleep 0.05; done; sleep 1.5; printf 'after the pause'; exit 5`;
      let observed = "";
      const result = await shell(lease, script, [], { observe: (channel, text) => void (channel === "stdout" && (observed += text)) });
      const expected = `${lines}after the pause`;
      const seen = (text: string) =>
        `${text.split("\n").length - 1} lines${text.endsWith("after the pause") ? " and the last words" : ", not the last words"}`;
      assert.equal(result.status, 5, `the exit status was ${result.status}; expected 5 (stdout: ${seen(result.stdout)})`);
      assert.ok(
        result.stdout === expected,
        `the output after the pause is missing or altered: got ${seen(result.stdout)} of ${LONG_LINES}`,
      );
      assert.ok(observed === expected, `observe missed output: it saw ${seen(observed)} of ${LONG_LINES}`);
    },
    { timeoutMs: 90_000 },
  );
}
