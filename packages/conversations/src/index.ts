export { transcriptStore } from "./transcript/transcript-store.js";
export type { TranscriptStoreOptions } from "./transcript/transcript-store.js";
export type {
  TranscriptDestinationInput,
  TranscriptFormat,
  TranscriptOrigin,
  TranscriptRestorePlan,
  TranscriptRestorePlanInput,
} from "./transcript/transcript-format.js";

export { sessionBundleStore } from "./bundle/session-bundle-store.js";
export type { SessionBundleStoreOptions } from "./bundle/session-bundle-store.js";
export type { SessionBundle, SessionBundleEntry } from "./bundle/session-bundle.js";

export { archivedStore } from "./archive/archived-store.js";
export type { ArchivedStoreOptions } from "./archive/archived-store.js";
export { isPortableConversationStore } from "./archive/portable-store.js";
export type { PortableConversationStore } from "./archive/portable-store.js";

export { createPathRewriter } from "./relocation/path-rewriter.js";
export type { PathPair } from "./relocation/path-rewriter.js";
export { rewriteJsonLine } from "./relocation/json-text-rewriter.js";
export { relocateFile } from "./relocation/relocate-file.js";
export type { RelocatedText } from "./relocation/relocate-file.js";
export { assertRelocatablePath, relocationPairs, relocationTo } from "./relocation/relocation.js";
export type { Relocation } from "./relocation/relocation.js";

export { runSandboxScript } from "./sandbox/sandbox-script.js";
export type { SandboxScriptOptions } from "./sandbox/sandbox-script.js";
export type { SandboxProgramName } from "./sandbox/sandbox-programs.js";
export { startScriptStandby, type ScriptStandby } from "./sandbox/sandbox-script-standby.js";
export type { SandboxLibrary } from "./sandbox/sandbox-library.js";

export { assertConversationId } from "./conversation-id.js";
export { conversationDirectory } from "./host/conversation-directory.js";
export { DEFAULT_BUNDLE_MAX_BYTES, DEFAULT_BUNDLE_MAX_FILES, DEFAULT_MAX_FILES, DEFAULT_TRANSCRIPT_MAX_BYTES } from "./limits.js";
export type { CaptureLimits } from "./limits.js";
export { removeSandboxPath } from "./sandbox/remove-sandbox-path.js";
export { packDirectory, unpackDirectory } from "./archive/file-pack.js";
export { recoverDirectory, replaceDirectory } from "./host/replace-directory.js";
export { rewriteJsonBlock } from "./relocation/relocate-file.js";
export { COMMON_CREDENTIAL_FILES, anyOf, credentialFiles } from "./credential-files.js";
export { unpackConversationFolder, writeConversationFolder } from "./host/conversation-folder.js";
export { corruptOrigin, readOriginRecord } from "./host/origin-record.js";
export type { ExpectedOrigin, OriginRecord } from "./host/origin-record.js";
