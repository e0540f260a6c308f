// Run by tests/built-package.test.ts in a plain `node` process: imports the BUILT packages the way a user's
// code does (no outpost-source condition, no TypeScript), captures and restores a transcript and a session
// bundle through every sandbox program, and prints what happened as one JSON line.
// Usage: node round-trip.mjs <local|docker> <base folder> [docker image]
import { chown, lstat, mkdir, readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { removeSandboxPath, sessionBundleStore, transcriptStore } from "@outpost/conversations";

const [kind, base, image] = process.argv.slice(2);
const ID = "0e6c2a84-5f0b-4d8e-9b6a-1f2e3d4c5b6a";
const ran = new Set();

/** A lease whose `node` commands are noted by the program they start. */
function noting(lease) {
  return new Proxy(lease, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== "invoke") return typeof value === "function" ? value.bind(target) : value;
      return (command) => {
        const started = /outpostSandbox\.start\("(\w+)"/.exec(command.executable === "node" ? (command.arguments?.[1] ?? "") : "");
        if (started) ran.add(started[1]);
        return target.invoke(command);
      };
    },
  });
}

async function acquire(name) {
  const directory = join(base, name);
  await mkdir(directory, { recursive: true });
  const context = { repository: directory, directory, gitDirectories: [], variables: {} };
  if (kind === "docker") {
    if (process.getuid?.() === 0) await chown(directory, 1000, 1000);
    const { dockerProvider } = await import("@outpost/provider-docker");
    return noting(await dockerProvider({ image, network: "none" }).acquire(context));
  }
  const { localProvider } = await import("@outpost/provider-local");
  return noting(await localProvider({ home: "private" }).acquire(context));
}

// Written as a user writes plugins: plain functions, no import in the hooks.
const transcriptFormat = {
  format: "built-transcript",
  root: { directory: ".built-transcript" },
  sessions: "sessions",
  transcriptPattern: (id) => `^[^/]+/${id}\\.jsonl$`,
  sidecar: true,
  sidecarExclude: /^secret\.json$/,
  destination: ({ id, workspace }) => `${workspace.split("/").pop()}/${id}.jsonl`,
};
const bundleProfile = {
  specificationVersion: "v1",
  format: "built-bundle",
  root: { directory: ".built-bundle" },
  sessions: "sessions",
  buckets: true,
  include: /^(state\.json|log\.jsonl)$/,
  required: ["state.json"],
  relocated: ["state.json"],
  validate: (files, id) => (JSON.parse(files.text("state.json")).id === id ? undefined : "state.json names another session"),
  bucket: (cwd, helpers) => `wd_${helpers.sha256(helpers.normalize(cwd)).slice(0, 8)}`,
  relocate: (path, text, relocation) => JSON.stringify({ ...JSON.parse(relocation.rewrite(text)), cwd: relocation.to.workspace }),
};

const source = await acquire("source");
const target = await acquire("target");
const context = (lease, name) => ({ repository: join(base, "host"), sandbox: lease, staging: join(base, `staging-${name}`) });
try {
  // The agent's files, written where the CLI would write them (through the lease, so ownership is the sandbox's).
  const sessions = `${source.home}/.built-transcript/sessions/source`;
  const state = JSON.stringify({ id: ID, cwd: source.root, note: `made in ${source.root}` });
  const bucket = `${source.home}/.built-bundle/sessions/wd_any/${ID}`;
  const plant = [
    `mkdir -p ${sessions}/${ID} ${bucket}`,
    `printf '%s\\n' '{"cwd":"${source.root}"}' > ${sessions}/${ID}.jsonl`,
    `printf 'kept' > ${sessions}/${ID}/notes.txt`,
    `printf 'token' > ${sessions}/${ID}/secret.json`,
    `printf '%s' '${state}' > ${bucket}/state.json`,
    `printf 'log' > ${bucket}/log.jsonl`,
  ].join(" && ");
  const planted = await source.invoke({ executable: "sh", arguments: ["-c", plant] });
  if (planted.status !== 0) throw new Error(`planting failed: ${planted.stderr}`);

  const transcripts = transcriptStore(transcriptFormat);
  const bundles = sessionBundleStore(bundleProfile);
  const transcriptRecord = await transcripts.capture(ID, context(source, "t"));
  const bundleRecord = await bundles.capture(ID, context(source, "b"));
  await transcripts.restore(transcriptRecord, context(target, "t"));
  await bundles.restore(bundleRecord, context(target, "b"));

  const read = async (lease, path) => (await lease.invoke({ executable: "cat", arguments: [path] })).stdout;
  const restored = `${target.home}/.built-transcript/sessions/${target.root.split("/").pop()}/${ID}`;
  const restoredTranscript = await read(target, `${restored}.jsonl`);
  const restoredSidecar = await read(target, `${restored}/notes.txt`);
  const secretLeft = (await target.invoke({ executable: "test", arguments: ["-e", `${restored}/secret.json`] })).status === 0;
  const buckets = (await target.invoke({ executable: "ls", arguments: [`${target.home}/.built-bundle/sessions`] })).stdout.trim();
  const restoredState = JSON.parse(await read(target, `${target.home}/.built-bundle/sessions/${buckets}/${ID}/state.json`));

  // The staging file a failed restore would leave: removed through the public helper.
  const leftover = `${target.home}/leftover-${ID}`;
  await target.invoke({ executable: "sh", arguments: ["-c", `printf x > ${leftover}`] });
  await removeSandboxPath(target, leftover);
  const leftoverGone = (await target.invoke({ executable: "test", arguments: ["-e", leftover] })).status !== 0;

  // Host placement: the same programs evaluated in this process (ConversationContext.local).
  let inProcess;
  if (kind === "local") {
    const third = await acquire("third");
    try {
      await transcripts.restore(transcriptRecord, { ...context(third, "l"), local: true });
      inProcess = await readFile(join(third.home, ".built-transcript/sessions/third", `${ID}.jsonl`), "utf8");
    } finally {
      await third.release();
    }
  }
  const hostFiles = await readdir(join(base, "host", ".outpost", "conversations"));
  const captured = await lstat(transcriptRecord.file).then((stat) => stat.isFile());
  console.log(
    JSON.stringify({
      ran: [...ran].sort(),
      restoredTranscript,
      restoredSidecar,
      secretLeft,
      buckets,
      restoredState,
      leftoverGone,
      inProcess,
      hostFiles,
      captured,
      targetRoot: target.root,
    }),
  );
} finally {
  await source.release();
  await target.release();
}
