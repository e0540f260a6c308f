import type { ProviderUnderTest } from "./provider-suite-context.js";

const PLACEMENTS = ["host", "mounted", "remote"];

/** Checks what `create()` resolved, so a wrong shape fails with what to return instead of a TypeError later. */
export function checkedSubject(value: unknown, name: string): ProviderUnderTest {
  const problem = shapeProblem(value);
  if (problem === undefined) return value as ProviderUnderTest;
  throw new TypeError(
    `describeSandboxProvider("${name}"): create() must resolve { provider, dispose? } where provider is a SandboxProvider; ${problem}.`,
  );
}

function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return `it resolved ${value === null ? "null" : typeof value}`;
  const subject = value as { provider?: unknown; dispose?: unknown; acquire?: unknown };
  if (subject.provider === undefined) {
    return typeof subject.acquire === "function"
      ? "it resolved the provider itself: wrap it as { provider }"
      : "it resolved an object without a `provider` property";
  }
  if (subject.dispose !== undefined && typeof subject.dispose !== "function")
    return `\`dispose\` is a ${typeof subject.dispose}, not a function`;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the narrowing below needs the field types.
  const provider = subject.provider as { name?: unknown; placement?: unknown; acquire?: unknown } | null;
  if (typeof provider !== "object" || provider === null) return `\`provider\` is ${provider === null ? "null" : `a ${typeof provider}`}`;
  if (typeof provider.acquire !== "function") return "`provider.acquire` is not a function";
  if (typeof provider.name !== "string" || provider.name === "") return "`provider.name` is not a non-empty string";
  if (!PLACEMENTS.includes(provider.placement as string))
    return `\`provider.placement\` is ${JSON.stringify(provider.placement)}, not one of ${PLACEMENTS.join(", ")}`;
  return undefined;
}
