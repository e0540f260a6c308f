// Fault-test helpers for cloud-provider authors: an API double plus scratch worktree for the file's tests,
// and the OutpostError an operation (or a command whose sandbox vanishes) fails with.
export { useApiDouble } from "./api-double-fixture.js";
export type { ApiDoubleFixture, ClosableDouble } from "./api-double-fixture.js";
export { failureWhenSandboxVanishes, outpostFailure } from "./expect-failure.js";
export { processesLeftAfterRelease } from "./processes-left.js";
export type { MarkedPids } from "./processes-left.js";
