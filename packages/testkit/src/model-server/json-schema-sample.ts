import { asArray, asRecord } from "./model-request.js";

/**
 * Well-known helper fields, answered so the CLI carries on quietly: Gemini's router (simple task) and its
 * next-speaker check (the user speaks next, so the turn ends).
 */
const KNOWN_FIELDS: Readonly<Record<string, unknown>> = {
  complexity_reasoning: "A single simple step.",
  complexity_score: 1,
  reasoning: "The model answered; the user speaks next.",
  next_speaker: "user",
  model_choice: "flash",
};

/** A plausible value for a JSON schema (OpenAPI-style upper-case types included), for structured side requests. */
export function sampleFromSchema(schema: unknown, field?: string, depth = 0): unknown {
  if (field !== undefined && field in KNOWN_FIELDS) return KNOWN_FIELDS[field];
  const node = asRecord(schema);
  const enumValues = asArray(node["enum"]);
  if (enumValues.length > 0) return field === "next_speaker" && enumValues.includes("user") ? "user" : enumValues[0];
  if (depth > 8) return null;
  const anyOf = asArray(node["anyOf"] ?? node["oneOf"]);
  if (anyOf.length > 0) return sampleFromSchema(anyOf[0], field, depth + 1);
  const type = String(
    Array.isArray(node["type"]) ? node["type"][0] : (node["type"] ?? (node["properties"] ? "object" : "string")),
  ).toLowerCase();
  switch (type) {
    case "object": {
      const result: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(asRecord(node["properties"]))) result[key] = sampleFromSchema(value, key, depth + 1);
      return result;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return typeof node["minimum"] === "number" ? node["minimum"] : 1;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return "ok";
  }
}
