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
export type { DescribeSandboxProviderOptions } from "./provider/describe-sandbox-provider.js";
export type { CheckSettings, LeaseCase, ProviderCapability, ProviderSuiteContext, ProviderUnderTest } from "./provider/provider-suite-context.js";
export { leaseCheck, withLease, withHostDirectory, unsupportedReason } from "./provider/provider-suite-context.js";
export { providerCapabilityTests, leaseCapabilities } from "./provider/capabilities.js";
export { providerExecTests, KIT_CONTEXT_VARIABLES } from "./provider/exec.js";
export { providerLiveInputTests } from "./provider/live-input.js";
export { providerDeadlineTests } from "./provider/deadline.js";
export { providerTransferTests } from "./provider/transfers.js";
export { providerFileTransferTests } from "./provider/file-transfers.js";
export { providerLifecycleTests } from "./provider/lifecycle.js";

export { gate } from "./shared/gate.js";
export { vitestRunner } from "./shared/suite-runner.js";
export type { SuiteRunner, SuiteTest } from "./shared/suite-runner.js";
export { unsupportedTitle, unavailableTitle } from "./shared/suite-options.js";
export type { SuiteOptions, Unavailable } from "./shared/suite-options.js";
