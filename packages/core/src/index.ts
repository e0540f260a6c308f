export { OutpostError, isOutpostError, OUTPOST_ERROR_CODES } from "./errors/outpost-error.js";
export type { OutpostErrorCode, OutpostErrorDetails, OutpostErrorOptions } from "./errors/outpost-error.js";
export { abortError, throwIfAborted } from "./errors/abort-error.js";
export { assertHostOwned, assertHostOwnedDirectories, notHostOwned, ownershipProblem, readHostOwnedFile } from "./files/host-owned-file.js";
export type { HostOwnedOptions } from "./files/host-owned-file.js";

export { DEFAULT_RETAIN_BYTES } from "./sandbox/command.js";
export type { Command, CommandChannel, CommandHomeFile, CommandResult } from "./sandbox/command.js";
export type { FileManifestEntry, FileTransfers, TransferOptions } from "./sandbox/file-transfers.js";
export type { SandboxLease } from "./sandbox/sandbox-lease.js";
export type { SandboxCapabilities, SandboxContext, SandboxGit, SandboxPlacement, SandboxProvider } from "./sandbox/sandbox-provider.js";

export type { ConversationRecord } from "./conversation/conversation-record.js";
export type { ConversationContext, ConversationStore, NativeConversationStore } from "./conversation/conversation-store.js";
export type {
  SessionBundleFiles,
  SessionBundleHelpers,
  SessionBundleProfile,
  SessionBundleRelocation,
} from "./conversation/session-bundle-profile.js";
export { sessionPathPattern } from "./conversation/session-path-pattern.js";

export { addUsage } from "./agent/usage.js";
export type { Usage } from "./agent/usage.js";
export type { AgentEvent, AgentEventType, FailureClassification } from "./agent/agent-event.js";
export type { AgentFeatures, PinnedCli, UsageMode } from "./agent/agent-features.js";
export type {
  RecordedCommit,
  RecordedIdentity,
  ReplayAgent,
  ReplayDivergencePolicy,
  ReplayEvent,
  ReplayFallback,
  ReplayInjection,
  ReplayTurn,
} from "./agent/replay-agent.js";
export { ReplayDivergence } from "./errors/replay-divergence.js";
export type { ReplayDivergenceInit, ReplayDivergenceKind } from "./errors/replay-divergence.js";
export type {
  AgentAdapter,
  AgentCommand,
  AgentHomeFile,
  AgentLineDecoder,
  AgentLiveInput,
  AgentLiveMessage,
  AgentLiveSession,
  AgentTurn,
  DecoderContext,
  FailureRule,
  LearnedCliVersion,
} from "./agent/agent-adapter.js";
export type { Agent, AgentForkContext, CustomAgent } from "./agent/custom-agent.js";
export { affectedFeatures, cliRelease, compareVersions, firstVersionWith, parseCliVersion } from "./agent/cli-version.js";
export type { CliFeatureRow, CliFeatureTable, CliRelease } from "./agent/cli-version.js";
export { probeCliVersion } from "./agent/cli-version-probe.js";
export type { CliProbeRequest, CliProbeTarget, CliVersionProbe } from "./agent/cli-version-probe.js";
export { cliProbeBudgetMs } from "./agent/cli-probe-budget.js";
export { UnknownKinds } from "./agent/unknown-kinds.js";
export { errorLines } from "./agent/error-lines.js";
export { tailLines } from "./text/tail-lines.js";
export { LineSplitter } from "./agent/line-splitter.js";
export { classifyFailure } from "./agent/classify-failure.js";
export {
  parseJsonLine,
  leadingJsonType,
  lazyRawEvent,
  isJsonObject,
  jsonObject,
  jsonString,
  jsonNumber,
  jsonObjectField,
  jsonStringField,
  jsonNumberField,
} from "./agent/json-line.js";

export type {
  Transport,
  TransportEntry,
  TransportObject,
  TransportReadOptions,
  TransportReference,
  TransportRemoveOptions,
  TransportWriteOptions,
} from "./transport/transport.js";
export { assertTransportKey, assertTransportPrefix } from "./transport/transport-key.js";

export { normalizeRelativePath, resolveInside, isInside } from "./paths/relative-path.js";
export { resolveSandboxPath, isLegalSandboxPath } from "./paths/sandbox-path.js";
export type { LegalSandboxPath, SandboxAnchors } from "./paths/sandbox-path.js";

export { assertSpecificationVersion, SUPPORTED_SPECIFICATION_VERSIONS } from "./plugin/specification-version.js";
export type { PluginContract } from "./plugin/specification-version.js";
export { DESCRIPTOR_SPECIFICATION_VERSION } from "./plugin/plugin-descriptor.js";
export type {
  AgentDescriptor,
  AgentEndpoint,
  AgentFactoryOptions,
  ModelReasoning,
  ModelSetting,
  PluginDescriptor,
  ProviderDescriptor,
  ProviderOptionDescriptor,
} from "./plugin/plugin-descriptor.js";
export type {
  PluginCommand,
  PluginCommandArgument,
  PluginCommandHost,
  PluginCommandInput,
  PluginCommandOption,
} from "./plugin/plugin-command.js";
export type { QueueDescriptor } from "./plugin/queue-descriptor.js";
export type { TransportDescriptor } from "./plugin/transport-descriptor.js";
export { flattenEndpoint } from "./plugin/agent-endpoint.js";
export type { EndpointOptions } from "./plugin/agent-endpoint.js";
