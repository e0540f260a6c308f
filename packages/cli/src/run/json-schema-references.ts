import { OutpostError } from "@outpost/core";

type JsonSchema = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is JsonSchema => typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema a local reference (`#`, `#/$defs/name`, a JSON Pointer after `#`) points at, or undefined. */
export function resolveLocalReference(root: JsonSchema, reference: string): JsonSchema | undefined {
  if (!reference.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const part of reference.slice(1).split("/").filter(Boolean)) {
    let key: string;
    try {
      key = decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    node = isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
  }
  return isObject(node) ? node : undefined;
}

/** Keywords whose values are data, not schemas: a `$ref` key inside them is not a reference. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["const", "enum", "default", "examples"]);

/**
 * Refuses (code `configuration`) a schema whose `$ref`s leave the file (`https://…`, `other.json#…`) or point at
 * nothing in it: the check runs with no network and no other files, and a reference it cannot follow would
 * otherwise turn every answer into a validation issue after the agent ran.
 */
export function assertLocalReferences(root: JsonSchema, file: string): void {
  const visit = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) return node.forEach((item, index) => visit(item, `${pointer}/${index}`));
    if (!isObject(node)) return;
    const reference = node["$ref"];
    if (typeof reference === "string") refuseUnresolved(root, reference, `${pointer}/$ref`, file);
    for (const [key, value] of Object.entries(node)) {
      if (!DATA_KEYWORDS.has(key)) visit(value, `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
    }
  };
  visit(root, "");
}

function refuseUnresolved(root: JsonSchema, reference: string, at: string, file: string): void {
  if (!reference.startsWith("#")) {
    throw new OutpostError(
      "configuration",
      `--response ${file}: $ref ${JSON.stringify(reference)} at ${at || "/"} points at another document; ` +
        `Outpost fetches nothing while it checks an answer (no network, no other files). ` +
        `Copy the referenced schema into the file under $defs and refer to it as "#/$defs/<name>".`,
      { details: { path: file, reference, at } },
    );
  }
  if (!resolveLocalReference(root, reference)) {
    throw new OutpostError(
      "configuration",
      `--response ${file}: $ref ${JSON.stringify(reference)} at ${at || "/"} points at nothing in the schema. ` +
        `Use a JSON Pointer to a schema in the file, e.g. "#/$defs/<name>".`,
      { details: { path: file, reference, at } },
    );
  }
}
