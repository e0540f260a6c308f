import * as v from "valibot";

// valibot rather than zod: its functions are separate exports, so the run command loads only the few it uses
// (zod's 5.7 MB package loads its whole core on import).
const count = v.pipe(v.number("expected a number"), v.integer("expected a whole number"), v.minValue(1, "expected 1 or more"));
const text = v.pipe(v.string("expected a string"), v.nonEmpty("expected a non-empty string"));

/**
 * `.outpost/config.json`: defaults of `outpost run` for this repository, by the flag names (flags win).
 * Unknown keys are refused, so a typo is an error and not a silently ignored setting.
 */
export const CONFIG_SCHEMA = v.strictObject(
  {
    $schema: v.optional(v.string()),
    agent: v.optional(text),
    provider: v.optional(text),
    model: v.optional(text),
    branch: v.optional(text),
    image: v.optional(text),
    network: v.optional(text),
    passes: v.optional(count),
    "deadline-ms": v.optional(count),
    "idle-ms": v.optional(count),
  },
  "unknown key: the keys are agent, provider, model, branch, image, network, passes, deadline-ms, idle-ms",
);

export type OutpostConfig = v.InferOutput<typeof CONFIG_SCHEMA>;

/** The issues of a parsed value: each with its key (`undefined` for the whole file) and message. */
export function configIssues(value: unknown): { readonly config?: OutpostConfig; readonly issues: { key?: string; message: string }[] } {
  const result = v.safeParse(CONFIG_SCHEMA, value);
  if (result.success) return { config: result.output, issues: [] };
  return {
    issues: result.issues.map((issue) => {
      const key = issue.path?.map((item) => String(item.key)).join(".");
      return { ...(key ? { key } : {}), message: issue.message };
    }),
  };
}
