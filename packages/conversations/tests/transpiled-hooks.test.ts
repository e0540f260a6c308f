import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionBundleProfile } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { sessionBundleStore } from "../src/index.js";
import { renamedNameHelpers } from "../src/sandbox/transpiler-helpers.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";

// Hooks as a user writes them in TypeScript: named arrows, a function declaration and a class inside, so
// esbuild's keepNames wraps each of them in its name helper.
const HOOKS_SOURCE = `
export const hooks = {
  validate(files: Record<string, string>, id: string): string | undefined {
    const parse = (text: string) => JSON.parse(text) as { version?: number; id?: string };
    const state = parse(files["state.json"] ?? "{}");
    return state.version === 2 && state.id === id ? undefined : "state.json is not version 2 of " + id;
  },
  bucket: (cwd: string, helpers: { basename(value: string): string; sha256(value: string): string }) => {
    const slugOf = (value: string) => value.toLowerCase().replace(/[^a-z0-9]/g, "");
    return "wd_" + slugOf(helpers.basename(cwd)) + "_" + helpers.sha256(cwd).slice(0, 8);
  },
  relocate(path: string, text: string, relocation: { rewrite(text: string): string; to: { workspace: string } }) {
    function stamp(value: string): string {
      return value + (stamp.name === "stamp" ? "" : "!");
    }
    class Marker {
      static label = "moved";
      tag(): string { return Marker.label + ":" + Marker.name; }
    }
    const upper = (value: string) => value.toUpperCase();
    if (path !== "state.json") return stamp(relocation.rewrite(text));
    const state = JSON.parse(text) as Record<string, unknown>;
    return JSON.stringify({ ...state, cwd: relocation.to.workspace, marker: new Marker().tag(), shout: upper("ok") }) + "\\n";
  },
};
export const outer = "/somewhere";
export const leaky = { relocate: (_path: string, text: string) => text.split("x").join(outer) };
`;

type Hooks = Required<Pick<SessionBundleProfile, "validate" | "bucket" | "relocate">>;

/** Builds the hooks the way tsx, vite or a minifying bundler does, and returns the live functions. */
function transpiled(minify: boolean): { hooks: Hooks; leaky: Pick<SessionBundleProfile, "relocate"> } {
  const { code } = transformSync(HOOKS_SOURCE, {
    loader: "ts",
    keepNames: true,
    minify,
    format: "iife",
    globalName: "built",
    target: "node20",
  });
  return new Function(`${code}; return built;`)() as { hooks: Hooks; leaky: Pick<SessionBundleProfile, "relocate"> };
}

const baseProfile: Omit<SessionBundleProfile, "validate" | "bucket" | "relocate"> = {
  specificationVersion: "v1",
  format: "transpiled",
  root: { directory: ".transpiled" },
  sessions: "sessions",
  buckets: true,
  include: /^.+$/,
  required: ["state.json", "log.jsonl"],
  relocated: ["state.json", "log.jsonl"],
};

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isOutpostError(error), `expected an OutpostError, got ${String(error)}`).toBe(true);
  return error as { code: string; message: string };
}

describe("hooks built by esbuild with keepNames (tsx, vite, vitest)", () => {
  let source: TestSandbox;
  let target: TestSandbox;
  beforeEach(async () => {
    source = await localSandbox("repo");
    target = await localSandbox("elsewhere");
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
  });

  async function writeSession(profile: SessionBundleProfile): Promise<void> {
    const store = sessionBundleStore(profile);
    const folder = join(store.destination(ID, source.lease, ""), "..");
    await mkdir(join(folder, ID), { recursive: true });
    await writeFile(join(folder, ID, "state.json"), JSON.stringify({ version: 2, id: ID, cwd: source.lease.root }));
    await writeFile(join(folder, ID, "log.jsonl"), `${JSON.stringify({ path: `${source.lease.root}/a.txt` })}\n`);
  }

  for (const minify of [false, true]) {
    for (const local of [false, true]) {
      it(`capture, locate and restore run them (${minify ? "minified, helper renamed" : "__name helper"}; ${local ? "in-process" : "node -e in the sandbox"})`, async () => {
        const { hooks } = transpiled(minify);
        const text = hooks.relocate.toString();
        // The serialized text really calls a helper defined outside the hook.
        if (minify) expect(renamedNameHelpers(text).length).toBe(1);
        else expect(text).toContain('__name(stamp, "stamp")');
        const profile: SessionBundleProfile = { ...baseProfile, ...hooks };
        await writeSession(profile);
        const store = sessionBundleStore(profile);
        const record = await store.capture(ID, { ...source.context(), local });
        const located = await store.locate(ID, source.workspace);
        await store.restore(located, { ...target.context(), local });
        const restored = store.destination(ID, target.lease, record.file);
        expect(restored).toContain(`/wd_elsewhere_`);
        expect((await readdir(restored)).sort()).toEqual(["log.jsonl", "state.json"]);
        expect(JSON.parse(await readFile(join(restored, "state.json"), "utf8"))).toEqual({
          version: 2,
          id: ID,
          cwd: target.lease.root,
          marker: "moved:Marker",
          shout: "OK",
        });
        // `stamp.name` is kept, as esbuild's own helper keeps it.
        expect(await readFile(join(restored, "log.jsonl"), "utf8")).toBe(`${JSON.stringify({ path: `${target.lease.root}/a.txt` })}\n`);
      });
    }

    it(`a transpiled hook reaching for an outer variable still fails clearly (${minify ? "minified" : "not minified"})`, async () => {
      const { hooks, leaky } = transpiled(minify);
      const profile: SessionBundleProfile = { ...baseProfile, ...hooks };
      await writeSession(profile);
      const record = await sessionBundleStore(profile).capture(ID, source.context());
      const store = sessionBundleStore({ ...profile, ...leaky });
      for (const local of [false, true]) {
        const error = await failure(store.restore(record, { ...target.context(), local }));
        expect(error.code).toBe("configuration");
        expect(error.message).toMatch(/relocate hook of the transpiled profile is not self-contained: \w+ is not defined/);
      }
    });
  }
});

describe("renamedNameHelpers", () => {
  it("finds the shapes esbuild emits and nothing else", () => {
    expect(
      renamedNameHelpers(
        'function(a){const e=t(n=>n+1,"first");function s(r){return r}t(s,"second");class c{static{t(this,"Third")}}return e(s(a))}',
      ),
    ).toEqual(["t"]);
    // Free names called like the helper in other places stay free, so they fail when the hook runs.
    expect(renamedNameHelpers('(a)=>retry(()=>a,"op")')).toEqual([]);
    expect(renamedNameHelpers('(a)=>{const r=format(a,"label");return r}')).toEqual([]);
    expect(renamedNameHelpers('(a)=>{const r=fm(a,"label");return r}')).toEqual([]);
    expect(renamedNameHelpers('(a)=>"x"+i(n=>n.trim(),"trim")(a)')).toEqual(["i"]);
    expect(renamedNameHelpers('(a)=>{const e=t(n=>n,"f");return t.length+e(a)}')).toEqual([]);
    expect(renamedNameHelpers('(a)=>{const e=t(n=>n,"f");return log(a,"x")}')).toEqual(["t"]);
    expect(renamedNameHelpers('(a)=>{const e=t(n=>n,"f");const t=1;return e(a)}')).toEqual([]);
  });
});
