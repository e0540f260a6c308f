import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SandboxProvider } from "@outpost/core";
import { dispatch, HOST_READ_PATHS } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { localProvider } from "@outpost/provider-local";
import { DOCKER_TEST_IMAGE, dockerGate, scratchRepository, scriptAgent } from "../src/index.js";

// The class, not the instance: an agent writes every path the host later reads from `.outpost`
// (HOST_READ_PATHS, kept beside the code that reads them), through the worktree and through the host path;
// a second dispatch and the host's `.outpost` must then hold none of it.
const gate = dockerGate();
const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
const me = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
/** Built at run time in the sandbox, so the script's own text (which journals may hold) never matches. */
const MARK = "planted-by-the-agent";

function plantEverything(hostRoot: string): string {
  const lines = ['m=planted; m="$m-by-the-agent"'];
  for (const base of [".", hostRoot])
    for (const entry of HOST_READ_PATHS) {
      const target = `${base}/${entry.path}`;
      lines.push(
        entry.kind === "file"
          ? `mkdir -p "$(dirname '${target}')" 2>/dev/null; printf 'PLANTED=%s\\nPATH=/%s\\n' "$m" "$m" > '${target}' 2>/dev/null`
          : `mkdir -p '${target}' 2>/dev/null; printf '{"dispatchId":"%s"}' "$m" > '${target}/planted.json' 2>/dev/null`,
      );
    }
  // And through git: a commit that carries .outpost/.env, which a merge or checkout would write on the host.
  lines.push("git add -f .outpost/.env 2>/dev/null && git commit --quiet -m 'carry .outpost/.env' 2>/dev/null", "true");
  return lines.join("\n");
}

/** Every file under the checkout's `.outpost` holding the mark, the dispatch's own worktree aside. */
function planted(root: string, ownWorktree: string | undefined): string[] {
  const found: string[] = [];
  const walk = (directory: string): void => {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      if (path === ownWorktree) continue;
      const stats = lstatSync(path);
      if (stats.isDirectory()) walk(path);
      else if (stats.isFile() && readFileSync(path).includes(MARK)) found.push(path);
      else if (stats.isSymbolicLink()) found.push(path);
    }
  };
  walk(join(root, ".outpost"));
  return found;
}

const providers: { name: string; make: () => SandboxProvider; modes: readonly ("current" | "named" | "integrate")[]; docker: boolean }[] = [
  {
    name: "docker mounted",
    make: () =>
      dockerProvider({
        image: DOCKER_TEST_IMAGE,
        network: "none",
        user: me,
        volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
      }),
    modes: ["current", "named", "integrate"],
    docker: true,
  },
  {
    name: "docker isolated",
    make: () =>
      dockerProvider({
        image: DOCKER_TEST_IMAGE,
        mode: "isolated",
        network: "none",
        user: { uid: 0, gid: 0 },
        volumes: [{ source: agentDirectory, target: agentDirectory, readOnly: true }],
      }),
    modes: ["named", "integrate"],
    docker: true,
  },
];

describe("nothing the host reads from .outpost is writable from a sandbox", () => {
  // The local provider is not a boundary: the agent runs as you. What it promises: the single files the host
  // reads from .outpost (.env: variables of every agent command; config.json: outpost run's defaults;
  // .gitignore) are put back after the turn, with a warning, and never merged in.
  const hostFiles = HOST_READ_PATHS.filter((entry) => entry.kind === "file").map((entry) => entry.path);
  /** The user's own files before the run, so "put back" is checked byte for byte. */
  const userFiles = (repository: string): Map<string, Buffer> => {
    mkdirSync(join(repository, ".outpost"), { recursive: true });
    writeFileSync(join(repository, ".outpost", "config.json"), '{ "agent": "claude", "provider": "docker" }\n');
    writeFileSync(join(repository, ".outpost", ".env"), "OUTPOST_USER_VARIABLE=kept\n");
    writeFileSync(join(repository, ".outpost", ".gitignore"), "*\n");
    return new Map(hostFiles.map((path) => [path, readFileSync(join(repository, path))]));
  };
  const expectPutBack = (repository: string, before: Map<string, Buffer>): void => {
    for (const [path, bytes] of before) {
      expect(lstatSync(join(repository, path)).isFile(), path).toBe(true);
      expect(readFileSync(join(repository, path)).equals(bytes), path).toBe(true);
    }
  };

  it("the files put back are every single file of the table", () => {
    expect(hostFiles).toEqual(expect.arrayContaining([".outpost/.env", ".outpost/config.json", ".outpost/.gitignore"]));
  });

  for (const mode of ["current", "integrate"] as const)
    it(`local, ${mode}: every .outpost file the agent rewrote is restored and reported; the next dispatch sees none of it`, async () => {
      const repository = scratchRepository();
      const before = userFiles(repository);
      const warnings: string[] = [];
      await dispatch({
        agent: scriptAgent({ directory: agentDirectory, behaviour: { SHELL: plantEverything(repository), FILE: "agent.txt" } }),
        brief: "plant everything",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode },
        logging: false,
        warn: (message) => warnings.push(message),
      }).catch((error: { code: string; message: string }) => {
        expect(error.code).toBe("workspace");
        expect(error.message).toContain(".outpost/.env");
      });
      for (const path of hostFiles) {
        expect(warnings.join("\n")).toContain(join(repository, path));
        expect(planted(repository, undefined)).not.toContain(join(repository, path));
      }
      expectPutBack(repository, before);
      const texts: string[] = [];
      await dispatch({
        agent: scriptAgent({ directory: agentDirectory, behaviour: { PRINT_ENVIRONMENT: "1" } }),
        brief: "show the environment",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        logging: false,
        observe: ({ event }) => {
          if (event.type === "text") texts.push(event.text);
        },
      });
      expect(texts.join("\n")).not.toContain(MARK);
    }, 60_000);

  // Links are the other way to rewrite a file: the restore removes them and never writes or deletes through
  // one (the agent's link targets keep what it wrote there).
  const linkCases = {
    "each file replaced by a link to the agent's copy": (outside: string) =>
      hostFiles.map(
        (path) =>
          `printf 'PLANTED=%s\\n' "$m" > '${outside}/${path.split("/").pop()}'; rm -f '${path}'; ln -s '${outside}/${path.split("/").pop()}' '${path}'`,
      ),
    ".outpost itself moved away and replaced by a link": (outside: string) => [
      `mv .outpost '${outside}/moved'`,
      `ln -s '${outside}/moved' .outpost`,
      ...hostFiles.map((path) => `printf 'PLANTED=%s\\n' "$m" > '${outside}/moved/${path.split("/").pop()}'`),
    ],
  };
  for (const [name, plant] of Object.entries(linkCases))
    it(`local, current: ${name}: the links are removed, not followed, and the files put back`, async () => {
      const repository = scratchRepository();
      const outside = mkdtempSync(join(tmpdir(), "outpost-outside-"));
      const before = userFiles(repository);
      const warnings: string[] = [];
      await dispatch({
        agent: scriptAgent({
          directory: agentDirectory,
          behaviour: { SHELL: ['m=planted; m="$m-by-the-agent"', ...plant(outside)].join("\n"), FILE: "agent.txt" },
        }),
        brief: "plant links",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "current" },
        logging: false,
        warn: (message) => warnings.push(message),
      }).catch((error: { code: string; message: string }) => {
        // What the agent moved away (this dispatch's lock, records) may be missing when the dispatch ends.
        expect(error.code, error.message).toMatch(/^(workspace|internal)$/);
      });
      expect(lstatSync(join(repository, ".outpost")).isDirectory()).toBe(true);
      expectPutBack(repository, before);
      for (const path of hostFiles) expect(warnings.join("\n")).toContain(join(repository, path));
      // Nothing was written or removed through a link: the agent's files outside still hold its bytes.
      const left = readdirSync(outside, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      expect(left.length).toBeGreaterThanOrEqual(hostFiles.length);
      for (const path of hostFiles) {
        const name = path.split("/").pop()!;
        const file = left.find((entry) => entry.name === name);
        expect(file, name).toBeDefined();
        expect(readFileSync(join(file!.parentPath, name), "utf8")).toContain(MARK);
      }
    }, 60_000);

  it("the table names every place, each under .outpost", () => {
    expect(HOST_READ_PATHS.map((entry) => entry.path)).toContain(".outpost/.env");
    for (const entry of HOST_READ_PATHS) expect(entry.path.startsWith(".outpost/")).toBe(true);
  });

  for (const { name, make, modes, docker } of providers)
    for (const mode of modes)
      (docker && gate.unavailable ? it.skip : it)(
        `${name}, ${mode}: what the agent plants never reaches the host's .outpost or the next dispatch`,
        async () => {
          const repository = scratchRepository();
          const branch = mode === "named" ? { mode, name: "planted" } : { mode };
          const outcome = await dispatch({
            agent: scriptAgent({
              directory: agentDirectory,
              executable: "node",
              behaviour: { SHELL: plantEverything(repository), FILE: "agent.txt" },
            }),
            brief: "plant everything",
            repository,
            sandboxProvider: make(),
            branch,
            logging: false,
          }).then(
            (result) => ({ result, error: undefined }),
            (error: { code: string; message: string; details?: { recovery?: { directory?: string } } }) => ({ result: undefined, error }),
          );
          // A commit carrying .outpost/.env is refused where the agent could make one, before integration.
          // Armed: wherever the agent's worktree is not the checkout, it wrote and committed .outpost/.env there.
          if (mode !== "current") expect(outcome.error?.message).toContain(".outpost/.env");
          if (outcome.error) {
            expect(outcome.error.code, outcome.error.message).toBe("workspace");
            expect(outcome.error.message).toContain(".outpost/.env");
          }
          // The dispatch's own worktree (kept for named, or for recovery) is the agent's work, not a place the host reads.
          const own = outcome.result?.directory ?? outcome.error?.details?.recovery?.directory;
          if (own !== undefined && own !== repository) expect(own.startsWith(join(repository, ".outpost", "workspaces"))).toBe(true);
          expect(planted(repository, own)).toEqual([]);
          const texts: string[] = [];
          await dispatch({
            agent: scriptAgent({ directory: agentDirectory, behaviour: { PRINT_ENVIRONMENT: "1" } }),
            brief: "show the environment",
            repository,
            sandboxProvider: localProvider({ home: "private" }),
            logging: false,
            observe: ({ event }) => {
              if (event.type === "text") texts.push(event.text);
            },
          });
          expect(texts.join("\n")).toContain("PATH=");
          expect(texts.join("\n")).not.toContain(MARK);
        },
        120_000,
      );
});
