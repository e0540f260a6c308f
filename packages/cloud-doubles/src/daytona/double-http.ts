import type { IncomingMessage, ServerResponse } from "node:http";
import { DoubleRefusal } from "../framework/double-refusal.js";
import { readBody, sendJson } from "../framework/http-body.js";

export { DoubleRefusal, readBody, sendJson };

/** The API's error body (`statusCode`, `message`, `code`), which the SDK turns into a DaytonaError. */
export function sendRefusal(response: ServerResponse, refusal: DoubleRefusal): void {
  sendJson(
    response,
    refusal.status,
    { statusCode: refusal.status, message: refusal.message, code: refusal.code, error: refusal.code },
    {
      ...refusal.headers,
    },
  );
}

export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const body = await readBody(request);
  if (body.length === 0) return {};
  try {
    const parsed = JSON.parse(body.toString("utf8")) as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    return parsed as Record<string, unknown>;
  } catch {
    throw new DoubleRefusal(400, "BAD_REQUEST", "The request body is not a JSON object.");
  }
}

export function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new DoubleRefusal(400, "BAD_REQUEST", `${key} must be a string.`);
  return value;
}

export function requiredString(body: Record<string, unknown>, key: string): string {
  const value = optionalString(body, key);
  if (value === undefined || value === "") throw new DoubleRefusal(400, "BAD_REQUEST", `${key} is required.`);
  return value;
}

/** Bearer token check, as the API and the toolbox proxy both do. */
export function assertAuthorized(request: IncomingMessage, apiKey: string): void {
  if (request.headers.authorization !== `Bearer ${apiKey}`) {
    throw new DoubleRefusal(401, "UNAUTHORIZED", "Invalid credentials");
  }
}
