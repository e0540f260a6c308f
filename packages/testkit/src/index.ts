export { describeTransport } from "./transport/describe-transport.js";
export type { DescribeTransportOptions, TransportCapability } from "./transport/describe-transport.js";
export type { TransportSuiteContext, TransportUnderTest } from "./transport/transport-suite-context.js";
export { transportAbortTests } from "./transport/abort.js";
export { transportConditionalWriteTests } from "./transport/conditional-write.js";
export { transportKeyTests, HOSTILE_KEYS } from "./transport/keys.js";
export { transportListTests } from "./transport/list.js";
export { transportRaceTests } from "./transport/races.js";
export { transportReadTests } from "./transport/read.js";
export { transportRemoveTests } from "./transport/remove.js";
export { memoryTransport } from "./transport/memory-transport.js";

export { describeSandboxProvider } from "./provider/describe-sandbox-provider.js";
export type { DescribeSandboxProviderOptions, ProviderSkips } from "./provider/describe-sandbox-provider.js";
export type {
  CheckSettings,
  LeaseCase,
  ProviderCapability,
  ProviderSuiteContext,
  ProviderUnderTest,
} from "./provider/provider-suite-context.js";
export { leaseCheck, withLease, withHostDirectory, unsupportedReason } from "./provider/provider-suite-context.js";
export { providerCapabilityTests, leaseCapabilities } from "./provider/capabilities.js";
export { providerExecTests, KIT_CONTEXT_VARIABLES } from "./provider/exec.js";
export { providerLiveInputTests } from "./provider/live-input.js";
export { providerDeadlineTests } from "./provider/deadline.js";
export { providerTransferTests } from "./provider/transfers.js";
export { providerFileTransferTests } from "./provider/file-transfers.js";
export { providerLifecycleTests } from "./provider/lifecycle.js";
export { describeHostileTrees, HOSTILE_NAMES, providerHostileTreeTests } from "./provider/hostile-trees.js";
export type { DescribeHostileTreesOptions } from "./provider/hostile-trees.js";
export { providerEnvironmentTests, KIT_CONTEXT_HOME } from "./provider/environment.js";
export { providerSandboxPathTests } from "./provider/sandbox-paths.js";
export { providerBatchTests } from "./provider/batch-atomicity.js";
export { providerTransferDeadlineTests, providerFileTransferDeadlineTests } from "./provider/transfer-deadline.js";
export { providerReleaseLeftoverTests } from "./provider/release-leftovers.js";

export { gate } from "./shared/gate.js";
export { vitestRunner } from "./shared/suite-runner.js";
export type { SuiteRunner, SuiteTest } from "./shared/suite-runner.js";
export { unsupportedTitle, unavailableTitle } from "./shared/suite-options.js";
export type { SuiteOptions, Unavailable } from "./shared/suite-options.js";

export { describeAgentDecoder } from "./agent/describe-agent-decoder.js";
export type { DescribeAgentDecoderOptions } from "./agent/describe-agent-decoder.js";
export type { DecoderSuiteContext } from "./agent/decoder-suite-context.js";
export { decoderLineByLineTests } from "./agent/line-by-line.js";
export { decoderChunkedStreamTests } from "./agent/chunked-stream.js";
export { decoderHugeLineTests } from "./agent/huge-lines.js";
export { decoderMalformedFieldTests } from "./agent/malformed-fields.js";
export { hostileLines, FIXED_HOSTILE_LINES } from "./agent/hostile-lines.js";
export { seededRandom } from "./agent/seeded-random.js";
export { decodeChunks, knownEvents, randomChunks } from "./agent/decode-stream.js";
export { fixtureReader } from "./agent/fixture-reader.js";
export type { FixtureReader } from "./agent/fixture-reader.js";

export { fixturePair, filesMentioning, readTree, slug } from "./conversation/session-fixture.js";
export type { FixturePair, FixturePairOptions, FixtureSandbox, Recording } from "./conversation/session-fixture.js";
export { describeConversationStore, HOSTILE_SESSION_IDS } from "./conversation/describe-conversation-store.js";
export type { DescribeConversationStoreOptions } from "./conversation/describe-conversation-store.js";
export { describeSessionBundleProfile } from "./conversation/describe-session-bundle-profile.js";
export type { DescribeSessionBundleProfileOptions } from "./conversation/describe-session-bundle-profile.js";
export { DEFAULT_SESSION_BUNDLE_LIMITS, OUTSIDE_SECRET } from "./conversation/bundle-suite-context.js";
export type { SessionBundleLimits } from "./conversation/bundle-suite-context.js";
export { ODD_FILE_NAMES } from "./conversation/bundle-odd-names.js";
export { profileCaptures } from "./conversation/bundle-paths.js";
