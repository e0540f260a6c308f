import assert from "node:assert/strict";
import type { CommandChannel } from "@outpost/core";
import { leaseCheck, type ProviderSuiteContext } from "./provider-suite-context.js";
import { providerOutputFidelityTests } from "./output-fidelity.js";
import { shell, shellOk } from "./sandbox-shell.js";

const KIT_CONTEXT_VARIABLE = "OUTPOST_KIT_FROM_CONTEXT";

/** Variables the suite adds to every acquire() context, so it can check that commands see them. */
export const KIT_CONTEXT_VARIABLES: Readonly<Record<string, string>> = {
  [KIT_CONTEXT_VARIABLE]: "context value",
  OUTPOST_KIT_OVERRIDDEN: "from context",
};

/** Commands: exit status, output streams, stdin, variables, directory, observers, concurrency. */
export function providerExecTests(context: ProviderSuiteContext): void {
  leaseCheck(context, "reports the real exit status, zero and non-zero", async ({ lease }) => {
    for (const status of [0, 1, 3, 42, 255]) {
      const result = await shell(lease, `exit ${status}`);
      assert.equal(result.status, status, `exit ${status} was reported as ${result.status}`);
    }
  });

  leaseCheck(context, "reports the real exit status after the process closed its pipes early", async ({ lease }) => {
    const result = await shell(lease, "printf early; exec >&- 2>&- <&-; sleep 1; exit 7");
    assert.equal(result.status, 7);
    assert.equal(result.stdout, "early");
  });

  leaseCheck(context, "reports 128 + signal number for a process killed by a signal", async ({ lease }) => {
    const result = await shell(lease, "kill -9 $$");
    assert.equal(result.status, 137);
  });

  leaseCheck(context, "keeps stdout and stderr apart and byte-exact (NUL bytes, emoji, accents)", async ({ lease }) => {
    const result = await shell(lease, "printf 'out\\000NUL 😀 é\\n'; printf 'err\\000 ✓ ß\\n' >&2; printf 'more out'");
    assert.equal(result.status, 0);
    assert.equal(result.stdout, "out\0NUL 😀 é\nmore out");
    assert.equal(result.stderr, "err\0 ✓ ß\n");
  });

  leaseCheck(context, "carries 1 MB on each stream byte-exact, to the result and to observe", async ({ lease }) => {
    const text = megabyteOfText();
    const observed: Record<CommandChannel, string[]> = { stdout: [], stderr: [] };
    const result = await shell(lease, "cat > kit-megabyte.txt && cat kit-megabyte.txt && cat kit-megabyte.txt >&2", [], {
      stdin: text,
      retain: 4 * 1024 * 1024,
      observe: (channel, chunk) => observed[channel].push(chunk),
    });
    assert.equal(result.status, 0, result.stderr.slice(0, 500));
    assert.ok(result.stdout === text, `stdout differs: ${result.stdout.length} characters instead of ${text.length}`);
    assert.ok(result.stderr === text, `stderr differs: ${result.stderr.length} characters instead of ${text.length}`);
    assert.ok(observed.stdout.join("") === text, "observe saw different stdout text (a character split between chunks?)");
    assert.ok(observed.stderr.join("") === text, "observe saw different stderr text (a character split between chunks?)");
  });

  leaseCheck(context, "keeps only the retained tail of each stream", async ({ lease }) => {
    const text = Array.from({ length: 2000 }, (_, index) => `line ${index}\n`).join("");
    const result = await shell(lease, "cat > kit-tail.txt && cat kit-tail.txt && cat kit-tail.txt >&2", [], { stdin: text, retain: 100 });
    assert.equal(result.status, 0);
    assert.equal(result.stdout, text.slice(-100));
    assert.equal(result.stderr, text.slice(-100));
  });

  leaseCheck(context, "writes stdin to the process and then closes it", async ({ lease }) => {
    const given = await lease.invoke({ executable: "cat", stdin: "first line\nsecond ✓\n", deadlineMs: 20_000 });
    assert.deepEqual(given, { status: 0, stdout: "first line\nsecond ✓\n", stderr: "" });
    const none = await lease.invoke({ executable: "cat", deadlineMs: 20_000 });
    assert.deepEqual(none, { status: 0, stdout: "", stderr: "" }, "without stdin, stdin must be closed so cat ends at once");
  });

  leaseCheck(context, "passes variables; a command's variables win over the context's", async ({ lease }) => {
    const value = "spaces, 'quotes', \"double\", ünïcødé ✓ $HOME";
    const result = await shell(lease, `printf '%s|%s|%s' "$OUTPOST_KIT_VALUE" "$${KIT_CONTEXT_VARIABLE}" "$OUTPOST_KIT_OVERRIDDEN"`, [], {
      variables: { OUTPOST_KIT_VALUE: value, OUTPOST_KIT_OVERRIDDEN: "from command" },
    });
    assert.equal(result.stdout, `${value}|context value|from command`);
  });

  leaseCheck(context, "runs in root by default and in `directory` when given", async ({ lease }) => {
    const expectedRoot = await shellOk(lease, 'cd "$1" && pwd -P', [lease.root]);
    assert.equal(await shellOk(lease, "pwd -P"), expectedRoot);
    const nested = `${lease.root}/sub dir ✓/inner`;
    await shellOk(lease, 'mkdir -p "$1"', [nested]);
    const expectedNested = await shellOk(lease, 'cd "$1" && pwd -P', [nested]);
    const result = await lease.invoke({ executable: "sh", arguments: ["-c", "pwd -P"], directory: nested, deadlineMs: 20_000 });
    assert.equal(result.stdout, expectedNested);
  });

  leaseCheck(context, "an exception thrown in observe breaks neither the command nor the lease", async ({ lease }) => {
    let calls = 0;
    const result = await shell(lease, "echo one; echo two >&2; sleep 1; echo three", [], {
      observe: () => {
        calls++;
        throw new Error("observer failure the kit throws on purpose");
      },
    });
    assert.deepEqual(result, { status: 0, stdout: "one\nthree\n", stderr: "two\n" });
    assert.ok(calls >= 2, `observe was called ${calls} times; expected at least once per stream`);
    assert.equal(await shellOk(lease, "echo still usable"), "still usable\n");
  });

  leaseCheck(context, "runs several commands on one lease at the same time", async ({ lease }) => {
    const results = await Promise.all(
      [1, 2, 3].map((index) => shell(lease, `sleep 1; printf 'command %s' "$1"; printf 'error %s' "$1" >&2; exit "$1"`, [String(index)])),
    );
    results.forEach((result, offset) => {
      const index = offset + 1;
      assert.deepEqual(result, { status: index, stdout: `command ${index}`, stderr: `error ${index}` });
    });
  });

  providerOutputFidelityTests(context);
}

/** About 1 MiB of text with multi-byte characters spread over it, so chunk edges cut through some. */
function megabyteOfText(): string {
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; size < 1024 * 1024; index++) {
    const line = `${String(index).padStart(6, "0")} ünïcødé 😀 日本語 ✓ ${"x".repeat(index % 37)}\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return lines.join("");
}
