/**
 * A profile's `include` or `exclude` pattern as every engine and kit applies it to bundle-relative paths:
 * with the `s` flag, so `.` also matches line terminators. A name the agent makes may hold `\n`, `\r`,
 * U+2028 or any other character; without `s`, `/^.+$/` silently skipped such files.
 */
export function sessionPathPattern(pattern: RegExp): RegExp {
  return pattern.dotAll ? pattern : new RegExp(pattern.source, `${pattern.flags}s`);
}
