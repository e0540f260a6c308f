import type { IncomingMessage, ServerResponse } from "node:http";
import { DoubleRefusal } from "../framework/double-refusal.js";
import { readBody, sendJson } from "../framework/http-body.js";

export { DoubleRefusal, readBody, sendJson };

/** The API's error body, `{ error: { code, message } }`. */
export function sendRefusal(response: ServerResponse, refusal: DoubleRefusal): void {
  sendJson(response, refusal.status, { error: { code: refusal.code, message: refusal.message } }, { ...refusal.headers });
}

/** The JSON object body, or a 400 like the API's for anything else. */
export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const text = (await readBody(request)).toString("utf8");
  if (text === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DoubleRefusal(400, "bad_request", "The request body is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new DoubleRefusal(400, "bad_request", "The request body must be a JSON object.");
  return value as Record<string, unknown>;
}

export function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new DoubleRefusal(400, "bad_request", `\`${key}\` must be a string.`);
  return value;
}

export function optionalNumber(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    throw new DoubleRefusal(400, "bad_request", `\`${key}\` must be a non-negative number.`);
  return value;
}

export function stringArray(body: Record<string, unknown>, key: string): string[] {
  const value = body[key] ?? [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string"))
    throw new DoubleRefusal(400, "bad_request", `\`${key}\` must be an array of strings.`);
  return value as string[];
}

export function stringRecord(body: Record<string, unknown>, key: string): Record<string, string> {
  const value = body[key] ?? {};
  if (
    typeof value !== "object" ||
    value === null ||
    Array.isArray(value) ||
    Object.values(value).some((item) => typeof item !== "string")
  ) {
    throw new DoubleRefusal(400, "bad_request", `\`${key}\` must be an object of strings.`);
  }
  return value as Record<string, string>;
}
