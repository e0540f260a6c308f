import type { Unavailable } from "./suite-options.js";

/**
 * Turns a failed environment probe into a named skip, or into a thrown error when
 * `OUTPOST_REQUIRE_<BACKEND>=1` is set (CI), so CI can never pass by skipping.
 */
export function gate(backend: string, reason: string | undefined): { unavailable?: Unavailable } {
  if (reason === undefined) return {};
  const variable = `OUTPOST_REQUIRE_${backend.toUpperCase()}`;
  if (process.env[variable] === "1") {
    throw new Error(`${backend} is required (${variable}=1) but unavailable: ${reason}`);
  }
  return { unavailable: { reason } };
}
