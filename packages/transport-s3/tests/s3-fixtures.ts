import { createHash } from "node:crypto";
import type { S3Client } from "@aws-sdk/client-s3";
import { isOutpostError, type OutpostError } from "@outpost/core";

export const bytes = (text: string) => new TextEncoder().encode(text);

export function sha256Base64(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("base64");
}

/** Deterministic, incompressible-looking bytes of any size. */
export function patternBytes(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < size; index += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[index] = state & 0xff;
  }
  return out;
}

export async function failureOf(action: Promise<unknown>): Promise<OutpostError> {
  try {
    await action;
  } catch (error) {
    if (isOutpostError(error)) return error;
    throw new Error(`expected an OutpostError, got ${String(error)}`, { cause: error });
  }
  throw new Error("expected an OutpostError, but the call succeeded");
}

export interface ObservedRequest {
  readonly command: string;
  readonly headers: Record<string, string>;
  readonly responseBytes?: number;
}

/** Records every request a client sends (command, headers, response size): a real observation, not a mock. */
export function observeRequests(client: S3Client, onRequest?: (command: string) => void): ObservedRequest[] {
  const seen: ObservedRequest[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName);
      onRequest?.(command);
      const request = args.request as { headers?: Record<string, string> };
      const result = await next(args);
      const response = result.response as { headers?: Record<string, string> };
      const length = response.headers?.["content-length"];
      seen.push({ command, headers: { ...(request.headers ?? {}) }, responseBytes: length === undefined ? undefined : Number(length) });
      return result;
    },
    { step: "finalizeRequest", name: "outpostTestObserver" },
  );
  return seen;
}
