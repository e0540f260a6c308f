/** Typed reads of the loose options a host hands a descriptor's `createProvider` (flags, a config file). */
export interface DescriptorOptions {
  /** A non-empty string, else undefined. */
  text(key: string): string | undefined;
  /** A finite number, given as a number or as its text (a flag's value), else undefined. */
  number(key: string): number | undefined;
  /** True for `true` or `"true"`. */
  flag(key: string): boolean;
}

/**
 * Reads descriptor options. Its rule: **a value of the wrong type is absent, never coerced past its
 * meaning** (an empty string is no text, `"4"` is the number 4, `"yes"` is not a flag), so a provider's own
 * validation sees only what the user really gave.
 */
export function descriptorOptions(options: Readonly<Record<string, unknown>>): DescriptorOptions {
  return {
    text(key) {
      const value = options[key];
      return typeof value === "string" && value !== "" ? value : undefined;
    },
    number(key) {
      const value = options[key];
      const parsed = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
      return Number.isFinite(parsed) ? parsed : undefined;
    },
    flag(key) {
      return options[key] === true || options[key] === "true";
    },
  };
}
