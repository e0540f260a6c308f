// The baseline of the queue bench: one process running its share of the same dispatches directly, as a
// script on one machine would: its own clone, dispatch() on a branch per job, a push of that branch.
// Usage (env): BENCH_REMOTE, BENCH_CACHE, BENCH_FROM, BENCH_TO. Prints {"done":n} when finished.
import { dispatch } from "@outpost/dispatch";
import { descriptor as localDescriptor } from "@outpost/provider-local";
import { RepositoryCache } from "../src/repository-cache.js";
import { runGit } from "../src/run-git.js";
import { shellAgentDescriptor } from "../tests/support/shell-agent.js";

const remote = process.env.BENCH_REMOTE!;
const cache = new RepositoryCache(process.env.BENCH_CACHE!);
const [from, to] = [Number(process.env.BENCH_FROM), Number(process.env.BENCH_TO)];
const agent = shellAgentDescriptor.createAgent({});
const provider = await localDescriptor.createProvider({});
for (let index = from; index < to; index += 1) {
  const checkout = await cache.checkout(remote, "main");
  const branch = `direct/${index}`;
  await dispatch({
    agent,
    brief: `file-${index}.txt`,
    sandboxProvider: provider,
    repository: checkout.directory,
    branch: { mode: "named", name: branch, base: checkout.baseCommit },
  });
  await runGit(checkout.directory, ["push", "--quiet", "--force", "origin", `refs/heads/${branch}:refs/heads/${branch}`], { remote: true });
  await runGit(checkout.directory, ["branch", "-D", branch]);
}
process.stdout.write(`${JSON.stringify({ done: to - from })}\n`);
