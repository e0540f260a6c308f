import type { SessionBundleFiles, SessionBundleHelpers, SessionBundleRelocation } from "@outpost/core";

/** A profile's hooks as the sandbox programs get them: evaluated from their source (hook-source.ts). */
export interface ProfileHooks {
  readonly format: string;
  readonly validate?: (files: SessionBundleFiles, id: string) => string | undefined;
  readonly bucket?: (cwd: string, helpers: SessionBundleHelpers) => string;
  readonly relocate?: (path: string, text: string, relocation: SessionBundleRelocation) => string;
  readonly index?: (text: string | undefined, relocation: SessionBundleRelocation) => string;
}

/**
 * Calls one hook inside the sandbox. A hook that reaches for something it was not given (a ReferenceError) is
 * not self-contained: a configuration error. Any other throw is the session's problem, with nothing replaced.
 */
export function callHook<T>(hooks: ProfileHooks, name: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (error && typeof (error as { outpostCode?: unknown }).outpostCode === "string") throw error;
    // Duck-typed: a hook's error may come from another realm.
    const fields = (typeof error === "object" && error !== null ? error : {}) as { name?: unknown; message?: unknown };
    const reference = fields.name === "ReferenceError";
    const message = typeof fields.message === "string" && fields.message !== "" ? fields.message : String(error);
    throw Object.assign(
      new Error(
        reference
          ? `The ${name} hook of the ${hooks.format} profile is not self-contained: ${message}. ` +
              "Hooks run inside the sandbox, so they may use only their arguments and the helpers they are given."
          : `The ${name} hook of the ${hooks.format} profile threw: ${message}. ` +
              "The existing session was left untouched; fix the hook or the session files.",
      ),
      { outpostCode: reference ? "configuration" : "session", details: { hook: name } },
    );
  }
}
