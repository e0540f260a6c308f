// Run by built-package.test.ts in a plain node process: the packages as built (dist/), imported by name.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";

const base = process.argv[2];
const repository = join(base, "repository");
execFileSync("git", ["init", "-q", "-b", "main", repository]);
writeFileSync(join(repository, "README.md"), "seed\n");
execFileSync("git", ["-C", repository, "add", "README.md"]);
execFileSync("git", ["-C", repository, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "seed"]);
const conversationHome = join(base, "home");
const agent = scriptAgent({ directory: join(base, "agent") });
const provider = localProvider({ home: "private" });

const first = await dispatch({ agent, brief: "first task", repository, sandboxProvider: provider, conversationHome });
const resumed = await first.resume("second task");

const sandbox = await createSandbox({
  sandboxProvider: provider,
  repository,
  agent,
  conversationHome,
  branch: { mode: "named", name: "warm" },
});
const inSandbox = await sandbox.resume(first.conversationId, "third task");
const overlapping = sandbox.command({ executable: "true" });
const refused = await sandbox.command({ executable: "true" }).then(
  () => undefined,
  (error) => error.code,
);
await overlapping;
const closed = await sandbox.close();

console.log(
  JSON.stringify({
    resumedSameConversation: resumed.conversationId === first.conversationId,
    resumedText: resumed.text,
    sandboxText: inSandbox.text,
    refused,
    preserved: closed.preserved,
  }),
);
