import { OutpostError } from "@outpost/core";

/** Wraps a Node filesystem error as code `transport`, naming the operation and the errno. */
export function mapFsError(error: unknown, action: string, details: Record<string, unknown> = {}): OutpostError {
  if (OutpostError.isInstance(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const hint =
    code === "EACCES" || code === "EPERM"
      ? "Give this process read and write access to the store directory."
      : code === "ENOSPC" || code === "EDQUOT"
        ? "Free disk space on the store's filesystem."
        : "Check the store directory and retry.";
  const reason = error instanceof Error ? error.message : String(error);
  return new OutpostError("transport", `${action} failed: ${reason}. ${hint}`, { cause: error, details: { ...details, errno: code } });
}

export function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
