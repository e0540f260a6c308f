// The CLI's start as one CommonJS file (package.json `"outpostBundle": { "commonjsStart": "./dist/bin.js" }`),
// written by bundle-dist.mjs before the ES module build. Why: Node starts a CommonJS main ~10 ms sooner than
// an ES module one, and each further ES module costs its own resolve, read and link; `outpost --help` and
// the other quick commands need only commander, the program and the plugin scan.
// - Dependencies listed in `outpostBundle.inline` are bundled (commander, and the one builtins-only entry
//   `@outpost/core/plugin-packages`); any other package in the start graph fails the build, since the start
//   must not load the rest of @outpost/core or a plugin (and ESM-only packages cannot be required by CommonJS
//   on Node 20).
// - A relative dynamic `import()` stays an import() of the ES module build: its target is returned so
//   bundle-dist makes it an entry with a stable path (dist/run/run-command.js, …).
// - Builtins listed in `outpostBundle.lazyBuiltins` that inlined packages require are loaded on first use
//   (commander requires node:child_process only for executable subcommands, which outpost has none of).
import { builtinModules } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { build } from "esbuild";

const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Bundles `entry` into `<entry>.cjs`; resolves with the files written and the lazily imported modules. */
export async function bundleCommonjsStart({ entry, inline = [], lazyBuiltins = [] }) {
  const outfile = entry.replace(/\.js$/, ".cjs");
  const lazyModules = new Set();
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    // import.meta.url only serves to find the CLI's own folder (plugins beside it): this file's URL does.
    define: { "import.meta.url": "outpostStartUrl" },
    banner: { js: 'const outpostStartUrl = require("node:url").pathToFileURL(__filename).href;' },
    plugins: [startGraph({ outfile, inline: new Set(inline), lazyBuiltins: new Set(lazyBuiltins), lazyModules })],
    sourcemap: true,
    metafile: true,
    allowOverwrite: true,
    logLevel: "warning",
  });
  return { outputs: Object.keys(result.metafile.outputs).map((output) => resolve(output)), lazyModules: [...lazyModules] };
}

function startGraph({ outfile, inline, lazyBuiltins, lazyModules }) {
  return {
    name: "commonjs-start-graph",
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => {
        if (args.namespace === "lazy-builtin") return { path: args.path, external: true };
        if (args.kind === "dynamic-import" && args.path.startsWith(".")) {
          const target = resolve(args.resolveDir, args.path);
          lazyModules.add(target);
          return { path: `./${relative(dirname(outfile), target)}`, external: true };
        }
        if (BUILTINS.has(args.path)) {
          const builtin = args.path.startsWith("node:") ? args.path : `node:${args.path}`;
          const lazy = lazyBuiltins.has(builtin) && args.kind === "require-call" && args.importer.includes("/node_modules/");
          return lazy ? { path: builtin, namespace: "lazy-builtin" } : { path: args.path, external: true };
        }
        if (args.path.startsWith(".") || args.path.startsWith("/")) return undefined;
        const name = args.path.startsWith("@") ? args.path.split("/").slice(0, 2).join("/") : args.path.split("/")[0];
        // A listed package is inlined whole; a listed export path (`@outpost/core/plugin-packages`) only that entry.
        if (inline.has(name) || inline.has(args.path)) return undefined;
        return {
          errors: [
            {
              text: `the CommonJS start imports "${args.path}": import it lazily (await import) in the command that needs it, or list it in outpostBundle.inline`,
            },
          ],
        };
      });
      builder.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => ({
        contents: `module.exports = new Proxy({}, { get: (_, key) => require(${JSON.stringify(args.path)})[key] });`,
        loader: "js",
      }));
    },
  };
}
