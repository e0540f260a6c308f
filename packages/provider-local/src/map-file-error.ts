import { OutpostError, isOutpostError } from "@outpost/core";

/** Lets OutpostErrors through and wraps a raw file-system error (EACCES, ENOSPC…) as code `workspace`. */
export function mapFileError(what: string, error: unknown): OutpostError {
  if (isOutpostError(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new OutpostError(
    "workspace",
    `${what} failed: ${reason}. Check that the paths exist, are readable and writable, and that the disk has room.`,
    {
      cause: error,
      details: { code: (error as NodeJS.ErrnoException | undefined)?.code },
    },
  );
}

/** Runs `work`, turning any raw failure into an OutpostError (see mapFileError). */
export async function asOutpostFailure<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw mapFileError(what, error);
  }
}
