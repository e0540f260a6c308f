import { readFile } from "node:fs/promises";
import { OutpostError } from "@outpost/core";
import { assertPricing, type Pricing } from "./pricing.js";

/**
 * Reads a pricing table pinned in a JSON file (`{ "models": { "<model>": { "input": 3, "output": 15 } } }`),
 * checked as the `pricing` option is; an unreadable or malformed file is code `configuration`.
 */
export async function loadPricing(file: string): Promise<Pricing> {
  const text = await readFile(file, "utf8").catch((cause: unknown) => {
    throw new OutpostError("configuration", `Could not read the pricing file ${file}: ${String(cause)}.`, { cause, details: { file } });
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new OutpostError("configuration", `The pricing file ${file} is not JSON: ${String(cause)}.`, { cause, details: { file } });
  }
  assertPricing(parsed, file);
  return parsed as Pricing;
}
