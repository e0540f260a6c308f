import { OutpostError } from "@outpost/core";
import { wholeLinesFetch } from "./whole-lines-fetch.js";

/** The origin @vercel/sandbox calls; it offers no setting or variable to change it. */
export const VERCEL_API = "https://vercel.com/api";

/**
 * The fetch the SDK gets: `config.fetch` (or the global one), sending requests for the Sandbox API to
 * `apiUrl` instead when one is set (a gateway, or the offline API double). `apiUrl` defaults to
 * OUTPOST_VERCEL_API_URL: Outpost's own variable, since the SDK reads none for this. Its ndjson bodies arrive
 * in whole lines (see wholeLinesFetch).
 */
export function vercelFetch(
  config: { readonly apiUrl?: string; readonly fetch?: typeof globalThis.fetch },
  environment: NodeJS.ProcessEnv = process.env,
): typeof globalThis.fetch {
  const apiUrl = config.apiUrl ?? (environment.OUTPOST_VERCEL_API_URL || undefined);
  if (apiUrl === undefined) return wholeLinesFetch(config.fetch ?? ((input, init) => globalThis.fetch(input, init)));
  if (!/^https?:\/\/[^/]/.test(apiUrl)) {
    throw new OutpostError(
      "configuration",
      `The Vercel API URL ${JSON.stringify(apiUrl)} is not an http(s) URL. Set apiUrl (or OUTPOST_VERCEL_API_URL) to e.g. https://gateway.example/api, or unset it.`,
      { details: { apiUrl } },
    );
  }
  const target = apiUrl.replace(/\/+$/, "");
  const base = config.fetch ?? globalThis.fetch;
  return wholeLinesFetch((input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(VERCEL_API)) return base(input, init);
    const moved = target + url.slice(VERCEL_API.length);
    return base(typeof input === "string" || input instanceof URL ? moved : new Request(moved, input), init);
  });
}
