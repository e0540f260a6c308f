import { captureBundleProgram, removeCapturedBundleProgram, restoreBundleProgram } from "../bundle/bundle-programs.js";
import {
  commitTranscriptProgram,
  locateTranscriptProgram,
  prepareRestoreProgram,
  recheckTranscriptProgram,
  removeCopyProgram,
  removeProgram,
} from "../transcript/transcript-programs.js";

/**
 * Every program that runs inside a sandbox, by the name the host asks for. Only the build's
 * `dist/sandbox-programs.cjs` imports this table; the host names a program and sends that file.
 */
export const SANDBOX_PROGRAMS = {
  locateTranscript: locateTranscriptProgram,
  recheckTranscript: recheckTranscriptProgram,
  prepareRestore: prepareRestoreProgram,
  commitTranscript: commitTranscriptProgram,
  remove: removeProgram,
  removeCopy: removeCopyProgram,
  captureBundle: captureBundleProgram,
  restoreBundle: restoreBundleProgram,
  removeCapturedBundle: removeCapturedBundleProgram,
};

export type SandboxProgramName = keyof typeof SANDBOX_PROGRAMS;
