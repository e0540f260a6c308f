import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { findRepository, findRepositoryWithIdentity } from "../src/git/repository.js";
import { FALLBACK_IDENTITY, resolveIdentity } from "../src/git/git-identity.js";

// One host process answers where the checkout is, its HEAD and the identity git would use (issue 19): the
// answers must be those of findRepository and resolveIdentity, asked separately, in every situation.
const scratches: string[] = [];
afterAll(() => scratches.forEach((directory) => rmSync(directory, { recursive: true, force: true })));
const savedGitDir = process.env.GIT_DIR;
afterEach(() => {
  if (savedGitDir === undefined) delete process.env.GIT_DIR;
  else process.env.GIT_DIR = savedGitDir;
});

/** A checkout with a commit; `identity` is written to its own config. Isolated from the user's global config. */
function repository(options: { commit?: boolean; identity?: { name: string; email: string } } = {}): string {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "outpost-probe-")));
  scratches.push(scratch);
  const directory = join(scratch, "it's a repo");
  mkdirSync(directory);
  const run = (...args: string[]) => execFileSync("git", args, { cwd: directory, stdio: "ignore" });
  run("init", "-q", "-b", "main");
  if (options.identity) {
    run("config", "user.name", options.identity.name);
    run("config", "user.email", options.identity.email);
  }
  if (options.commit !== false)
    run("-c", "user.name=Setup", "-c", "user.email=setup@x.invalid", "commit", "-q", "--allow-empty", "-m", "one");
  return directory;
}

async function both(path: string) {
  const [repository, identity] = await Promise.all([findRepository(path), resolveIdentity(path).catch(() => FALLBACK_IDENTITY)]);
  return { repository, identity };
}

describe("findRepositoryWithIdentity", () => {
  it("answers as findRepository and resolveIdentity do: root, git directories, HEAD and the configured identity", async () => {
    const directory = repository({ identity: { name: "Ann O'Neil", email: "ann@example.invalid" } });
    mkdirSync(join(directory, "sub"));
    const probed = await findRepositoryWithIdentity(join(directory, "sub"));
    expect(probed).toEqual(await both(join(directory, "sub")));
    expect(probed.repository.root).toBe(directory);
    expect(probed.repository.head?.reference).toBe("refs/heads/main");
    expect(probed.identity.name).toBe("Ann O'Neil");
  });

  it("a checkout with no identity of its own gets what resolveIdentity gives (the fallback unless the user has one)", async () => {
    const directory = repository();
    expect(await findRepositoryWithIdentity(directory)).toEqual(await both(directory));
  });

  it("an unborn HEAD still finds the checkout, without HEAD", async () => {
    const directory = repository({ commit: false, identity: { name: "Bo", email: "bo@example.invalid" } });
    const probed = await findRepositoryWithIdentity(directory);
    expect(probed.repository.root).toBe(directory);
    expect(probed.repository.head).toBeUndefined();
    expect(probed.identity).toEqual({ name: "Bo", email: "bo@example.invalid" });
  });

  it("a directory outside any checkout, or missing, is code workspace", async () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "outpost-probe-outside-")));
    scratches.push(outside);
    const refused = await findRepositoryWithIdentity(outside).catch((error: unknown) => error);
    expect(isOutpostError(refused) && refused.code).toBe("workspace");
    const missing = await findRepositoryWithIdentity(join(outside, "missing")).catch((error: unknown) => error);
    expect(isOutpostError(missing) && missing.code).toBe("workspace");
  });

  it("is hardened like every engine git call: an inherited GIT_DIR pointing elsewhere is ignored", async () => {
    const directory = repository({ identity: { name: "Here", email: "here@example.invalid" } });
    const elsewhere = repository({ identity: { name: "Elsewhere", email: "elsewhere@example.invalid" } });
    process.env.GIT_DIR = join(elsewhere, ".git");
    const probed = await findRepositoryWithIdentity(directory);
    expect(probed.repository.root).toBe(directory);
    expect(probed.repository.gitDirectory).toBe(join(directory, ".git"));
    expect(probed.identity.name).toBe("Here");
  });
});
