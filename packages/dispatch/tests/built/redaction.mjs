// Run by built-redaction.test.ts in a plain node process: @outpost/dispatch as built (dist/), imported by name.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, lstatSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";

const SECRET = "built-secret-91ac";
const base = process.argv[2];
const repository = join(base, "repository");
execFileSync("git", ["init", "-q", "-b", "main", repository]);
writeFileSync(join(repository, "README.md"), "seed\n");
execFileSync("git", ["-C", repository, "add", "README.md"]);
execFileSync("git", ["-C", repository, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "seed"]);
const conversationHome = join(base, "home");
const observed = [];
const first = await dispatch({
  agent: scriptAgent({ directory: join(base, "agent") }),
  brief: `remember ${SECRET}`,
  repository,
  sandboxProvider: localProvider({ home: "private" }),
  conversationHome,
  redact: { values: [SECRET] },
  observe: (observation) => observed.push(observation),
});
// The script agent answers with the prompts it saw earlier in its conversation: the secret is in the resumed text.
// `redact` is carried to the continuation; `observe` is not, so it is passed again.
const result = await first.resume("and now?", { observe: (observation) => observed.push(observation) });

// Every file under a folder, links not followed.
const files = (path) => {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return [];
  if (stat.isDirectory()) return readdirSync(path).flatMap((name) => files(join(path, name)));
  return stat.isFile() ? [path] : [];
};
const holding = (paths) => paths.filter((path) => readFileSync(path).includes(SECRET));
console.log(
  JSON.stringify({
    textHasSecret: result.text.includes(SECRET),
    observedSecret: JSON.stringify(observed).includes(SECRET),
    observedRedacted: JSON.stringify(observed).includes("[redacted]"),
    outpostFilesWithSecret: holding(files(join(repository, ".outpost"))),
    conversationHasSecret: holding([result.conversation.file]).length === 1,
  }),
);
