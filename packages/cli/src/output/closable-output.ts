/**
 * Output that may go away: `outpost run --json | head` closes the pipe, a closed terminal (SIGHUP)
 * fails every write. The first failure calls `onClosed` once; later writes are dropped instead of
 * raising an unhandled EPIPE.
 */
export function closableOutput(stream: NodeJS.WritableStream, onClosed: (error: NodeJS.ErrnoException) => void): NodeJS.WritableStream {
  let closed = false;
  const close = (error: NodeJS.ErrnoException): void => {
    if (closed) return;
    closed = true;
    onClosed(error);
  };
  stream.on("error", close);
  const write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    if (closed) return false;
    try {
      return (stream.write as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean)(chunk, ...rest);
    } catch (error) {
      close(error as NodeJS.ErrnoException);
      return false;
    }
  }) as NodeJS.WritableStream["write"];
  return new Proxy(stream, {
    get(target, property, receiver) {
      if (property === "write") return write;
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
