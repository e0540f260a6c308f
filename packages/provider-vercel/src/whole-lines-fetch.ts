/**
 * A fetch whose ndjson response bodies arrive in whole lines. The SDK parses command output with
 * `jsonlines` (`jsonlines/lib/parser.js`), which decodes each network chunk on its own (`chunk.toString()`):
 * a multibyte character split between two chunks becomes U+FFFD on both sides. Handing it chunks that end
 * at a newline means no character is ever split; the bytes are otherwise passed through untouched.
 */
export function wholeLinesFetch(base: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null || !(response.headers.get("content-type") ?? "").includes("application/x-ndjson")) return response;
    return new Response(response.body.pipeThrough(wholeLines()), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Holds back what follows the last newline of a chunk until the next newline (or the end) comes. */
function wholeLines(): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array = new Uint8Array(0);
  return new TransformStream({
    transform(chunk, controller) {
      const last = chunk.lastIndexOf(0x0a);
      if (last === -1) {
        held = concat(held, chunk);
        return;
      }
      controller.enqueue(concat(held, chunk.subarray(0, last + 1)));
      held = chunk.slice(last + 1);
    },
    flush(controller) {
      if (held.length > 0) controller.enqueue(held);
    },
  });
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  if (first.length === 0) return second;
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}
