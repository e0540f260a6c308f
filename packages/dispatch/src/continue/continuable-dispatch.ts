import type { DispatchOptions } from "../dispatch-options.js";
import type { ResponseSpec } from "../response/response-spec.js";
import { dispatch as runDispatch } from "../dispatch.js";
import { continuable, type ContinuableResult } from "./continuable-result.js";
import { refuseUnknownFields } from "../options/unknown-fields.js";
import { refuseMissingAgent } from "../options/missing-agent.js";
import { withInstalledBootstrap } from "../bootstrap/installed-bootstrap.js";

/**
 * The public `dispatch()`: the engine's, whose result offers `resume()` and `fork()` (page 004). Kept apart
 * from the engine so the stages never see the continuation methods, and each continuation is a dispatch of
 * its own through this same entry (it can go on again).
 */
export async function dispatch<T>(
  options: DispatchOptions & { readonly response: ResponseSpec<T> },
): Promise<ContinuableResult<T> & { readonly value: T }>;
export async function dispatch(options: DispatchOptions): Promise<ContinuableResult>;
export async function dispatch(options: DispatchOptions): Promise<ContinuableResult> {
  // Before anything else, as every option check: a misspelt field would otherwise be silently ignored.
  refuseUnknownFields(options);
  refuseMissingAgent(options);
  return continuable(await runDispatch(await withInstalledBootstrap(options)), options, (next) => dispatch(next));
}
