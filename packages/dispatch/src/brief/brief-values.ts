import { OutpostError } from "@outpost/core";

/**
 * The values of a brief file's `{{name}}` placeholders: `variables`, or `values` (the public library's name).
 * Both given must agree; every value must be a string, since it reaches commands as an environment variable.
 */
export function briefValues(
  brief: { readonly variables?: unknown; readonly values?: unknown },
  file: string,
): Readonly<Record<string, string>> {
  const { variables, values } = brief;
  if (variables !== undefined && values !== undefined && JSON.stringify(variables) !== JSON.stringify(values))
    throw new OutpostError(
      "configuration",
      `Brief file ${file} got both variables and values: they are the same option. Pass one of them.`,
      {
        details: { file },
      },
    );
  const given = variables ?? values ?? {};
  if (typeof given !== "object" || given === null || Array.isArray(given))
    throw new OutpostError("configuration", `brief.variables of ${file} must be an object of name → text.`, { details: { file } });
  for (const [name, value] of Object.entries(given))
    if (typeof value !== "string")
      throw new OutpostError(
        "configuration",
        `brief.variables.${name} of ${file} must be text, got ${typeof value}. Convert it with String().`,
        {
          details: { file, variable: name },
        },
      );
  return given as Readonly<Record<string, string>>;
}
