import assert from "node:assert/strict";
import { isOutpostError } from "@outpost/core";
import { leaseCheck, withLease, type ProviderSuiteContext } from "./provider-suite-context.js";
import { shell, shellOk } from "./sandbox-shell.js";

/** A HOME the kit puts in the acquire() context: the lease must still run commands with HOME = lease.home. */
export const KIT_CONTEXT_HOME = "/outpost-kit-home-from-context";

/** What a command sees of its environment: HOME, the provider's variables, a terminal only when one is attached. */
export function providerEnvironmentTests(context: ProviderSuiteContext): void {
  leaseCheck(context, "runs commands with HOME = lease.home", async ({ lease }) => {
    assert.equal(await shellOk(lease, 'printf %s "$HOME"'), lease.home, "HOME differs from lease.home");
  });

  leaseCheck(context, "keeps HOME = lease.home when the acquire() context carries another HOME", async () => {
    const withHome: ProviderSuiteContext = {
      ...context,
      context: async (workspace) => {
        const base = await context.context(workspace);
        return { ...base, variables: { ...base.variables, HOME: KIT_CONTEXT_HOME } };
      },
    };
    await withLease(withHome, async ({ lease }) => {
      assert.equal(
        await shellOk(lease, 'printf %s "$HOME"'),
        lease.home,
        "a context variable replaced HOME: the agent would read credentials and conversations from elsewhere",
      );
    });
  });

  leaseCheck(context, "passes provider.variables to every command", async ({ lease, provider, workspace }) => {
    const own = await context.context(workspace);
    // Names sh can read back (identifiers), not overridden by the context, which wins over the provider.
    const variables = Object.entries(provider.variables ?? {}).filter(
      ([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && name !== "HOME" && !(name in own.variables),
    );
    assert.ok(
      variables.length > 0,
      `provider.variables is empty, so the kit cannot check that commands get them: configure the provider in create() with at least one, e.g. variables: { OUTPOST_KIT_PROVIDER: "set" }`,
    );
    const names = variables.map(([name]) => name);
    const result = await shell(
      lease,
      'for name in "$@"; do eval "value=\\${$name-\\<unset\\>}"; printf "%s=%s\\n" "$name" "$value"; done',
      names,
    );
    const expected = variables.map(([name, value]) => `${name}=${value}\n`).join("");
    assert.equal(result.stdout, expected, "the commands did not get provider.variables");
  });

  leaseCheck(context, "attaches a terminal for `interactive`, or refuses it (code configuration)", async ({ lease }) => {
    const outcome = await lease
      .invoke({
        executable: "sh",
        arguments: ["-c", "if [ -t 0 ] && [ -t 1 ]; then echo terminal; else echo none; fi"],
        interactive: true,
        terminal: { columns: 80, rows: 24 },
        deadlineMs: 30_000,
      })
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
    if ("error" in outcome) {
      assert.ok(
        isOutpostError(outcome.error, "configuration"),
        `an interactive command was refused, but not with an OutpostError of code "configuration": ${String(outcome.error)}`,
      );
      return;
    }
    assert.equal(
      outcome.result.stdout.trim(),
      "terminal",
      "the provider accepted `interactive` but attached no terminal: refuse it with code configuration instead",
    );
  });
}
