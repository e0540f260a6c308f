// What `npm run new` writes for each kind of plugin: a source stub that builds and a conformance test that
// runs the right kit and fails until the plugin is implemented.

/** camelCase of a kebab-case name: "my-cloud" → "myCloud". */
export function camel(name) {
  return name.replace(/-([a-z0-9])/g, (_, letter) => letter.toUpperCase());
}

const NOT_IMPLEMENTED = (what) =>
  `new OutpostError("configuration", \`${what} is not implemented yet. Fill in src/index.ts, then run the conformance test.\`)`;

export const KINDS = {
  provider: {
    folder: (name) => `provider-${name}`,
    factory: (name) => `${camel(name)}Provider`,
    summary: "a sandbox provider: hands out SandboxLeases",
    peers: ["@outpost/core"],
    plugin: "provider",
    source: (
      name,
      factory,
    ) => `import { DESCRIPTOR_SPECIFICATION_VERSION, OutpostError, type ProviderDescriptor, type SandboxContext, type SandboxLease, type SandboxProvider } from "@outpost/core";

export interface ${pascal(factory)}Options {
  /** Settings your sandbox backend needs (region, credentials variable names…). */
  readonly region?: string;
}

/** A sandbox provider for ${name}. */
export function ${factory}(options: ${pascal(factory)}Options = {}): SandboxProvider {
  void options;
  return {
    specificationVersion: "v1",
    name: ${JSON.stringify(name)},
    placement: "remote",
    async acquire(context: SandboxContext): Promise<SandboxLease> {
      void context;
      throw ${NOT_IMPLEMENTED(`${name}: acquire()`)};
    },
  };
}

/** What hosts (the outpost CLI) read to list, check and build this provider; package.json points at it. */
export const descriptor: ProviderDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "provider",
  name: ${JSON.stringify(name)},
  description: ${JSON.stringify(`a sandbox provider for ${name}`)},
  placement: "remote",
  // The command-line options it reads (by name); the CLI refuses the others for this provider.
  options: [],
  capabilities: [],
  createProvider: () => ${factory}(),
};
`,
    test: (name, factory, folder) => `import { describeSandboxProvider } from "@outpost/testkit";
import { ${factory} } from "../src/index.js";

// The provider conformance suite: exit statuses, output, deadlines, aborts, transfers, release().
// Declare capabilities you do not have in \`unsupported\` (each becomes a named skip). Once the provider
// supports \`variables\`, pass at least one here: the kit checks that every command gets them.
describeSandboxProvider({
  name: ${JSON.stringify(folder)},
  create: async () => ({ provider: ${factory}() }),
});
`,
  },
  transport: {
    folder: (name) => `transport-${name}`,
    factory: (name) => `${camel(name)}Transport`,
    summary: "a transport: versioned objects with conditional writes",
    peers: ["@outpost/core"],
    source: (name, factory) => `import { OutpostError, type Transport, type TransportEntry, type TransportObject } from "@outpost/core";

export interface ${pascal(factory)}Options {
  /** Where objects live (a bucket, a folder, a table…). */
  readonly location?: string;
}

/** A transport for ${name}. */
export function ${factory}(options: ${pascal(factory)}Options = {}): Transport {
  void options;
  return {
    specificationVersion: "v1",
    name: ${JSON.stringify(name)},
    async read(): Promise<TransportObject | undefined> {
      throw ${NOT_IMPLEMENTED(`${name}: read()`)};
    },
    async write(): Promise<TransportEntry> {
      throw ${NOT_IMPLEMENTED(`${name}: write()`)};
    },
    async remove(): Promise<void> {
      throw ${NOT_IMPLEMENTED(`${name}: remove()`)};
    },
    async *list(): AsyncIterable<TransportEntry> {
      throw ${NOT_IMPLEMENTED(`${name}: list()`)};
    },
  };
}
`,
    test: (name, factory, folder) => `import { describeTransport } from "@outpost/testkit";
import { ${factory} } from "../src/index.js";

// The transport conformance suite: reads, conditional writes, races, keys, listing, aborts.
describeTransport({
  name: ${JSON.stringify(folder)},
  create: async () => ({ transport: ${factory}() }),
});
`,
  },
  agent: {
    folder: (name) => `agent-${name}`,
    factory: (name) => `${camel(name)}Agent`,
    summary: "an agent plugin: the CLI's command line, its stream decoder and where it keeps sessions",
    peers: ["@outpost/core", "@outpost/conversations", "@outpost/plugin-utils"],
    plugin: "agent",
    source: (name, factory) => `import { DESCRIPTOR_SPECIFICATION_VERSION, OutpostError } from "@outpost/core";
import type { AgentAdapter, AgentDescriptor, AgentEvent, SessionBundleProfile } from "@outpost/core";
import { sessionBundleStore } from "@outpost/conversations";
import { cliAgent, type CliAgentOptions } from "@outpost/plugin-utils";

/** Model, executable, version, variables and storage: the options every CLI agent takes. Add the CLI's own. */
export type ${pascal(factory)}Options = CliAgentOptions;

/**
 * Where the CLI keeps a session, so a conversation can continue in another sandbox: replace the folder
 * names and the required files with what the CLI really writes (check it with describeSessionBundleProfile).
 */
export const ${camel(name)}SessionProfile: SessionBundleProfile = {
  specificationVersion: "v1",
  format: ${JSON.stringify(name)},
  root: { directory: ${JSON.stringify(`.${name}`)} },
  sessions: "sessions",
  include: /^.+$/,
  required: ["session.json"],
};

/** Decodes one line of the CLI's JSON stream into normalized events. */
export function decode${pascal(name)}Line(line: string): AgentEvent[] {
  void line;
  throw ${NOT_IMPLEMENTED(`${name}: the stream decoder`)};
}

/** The ${name} agent: builds the command for a turn, decodes its output, captures its sessions. */
export function ${factory}(options: ${pascal(factory)}Options = {}): AgentAdapter {
  return cliAgent({
    name: ${JSON.stringify(name)},
    options,
    // Credentials travel as variables, never in files.
    variables: options.variables ?? {},
    requiresFinishedEvent: true,
    usage: "events",
    forkable: false,
    storage: () => options.storage ?? sessionBundleStore(${camel(name)}SessionProfile),
    failureRules: [],
    command(turn, agent) {
      void turn;
      void agent;
      throw ${NOT_IMPLEMENTED(`${name}: command()`)};
    },
    decoder: () => ({ decode: decode${pascal(name)}Line }),
  });
}

/** What hosts (the outpost CLI) read to list, check and build this agent; package.json points at it. */
export const descriptor: AgentDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "agent",
  name: ${JSON.stringify(name)},
  description: ${JSON.stringify(`the ${name} agent`)},
  executable: ${JSON.stringify(name)},
  // The variable holding the vendor's key (e.g. "ACME_API_KEY"), when there is one.
  variables: {},
  createAgent: (options) => ${factory}(options.executable === undefined ? {} : { executable: options.executable }),
};
`,
    test: (name, factory, folder) => `import { describeAgentDecoder } from "@outpost/testkit";
import { ${factory} } from "../src/index.js";

// The decoder conformance suite: hostile input never crashes, is kept as raw, and loses nothing.
// Replace RECORDED with the lines of a real stream recorded from the CLI (one fixture file per version).
const RECORDED = ['{"type":"text","text":"replace me with a recorded line"}'];

describeAgentDecoder({
  name: ${JSON.stringify(folder)},
  createDecoder: () => ${factory}().createDecoder(),
  recorded: RECORDED,
});
`,
  },
};

export function pascal(name) {
  const value = camel(name);
  return value.charAt(0).toUpperCase() + value.slice(1);
}
