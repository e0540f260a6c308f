/** One request as the double saw it: when it arrived and when its answer was sent. */
interface Span {
  readonly route: string;
  readonly start: number;
  end: number;
}

/**
 * The requests a double served, as time spans, to count *serial* round trips: the largest number of them
 * that did not overlap in time (earliest end first), i.e. how many round trips a client waited for one
 * after the other. Requests sent together count once, whatever their number.
 */
export class RoundTrips {
  private readonly spans: Span[] = [];

  /** Records a request that just arrived; call the returned function when it was answered. */
  begin(route: string): () => void {
    const span: Span = { route, start: performance.now(), end: Number.POSITIVE_INFINITY };
    this.spans.push(span);
    return () => void (span.end = Math.min(span.end, performance.now()));
  }

  /** A position to count from (`serial(mark)`): the requests recorded after it. */
  mark(): number {
    return this.spans.length;
  }

  /** Serial round trips among the requests from `mark` up to `until` (a later mark; default now), and their routes. */
  serial(mark = 0, until = this.spans.length): { readonly count: number; readonly routes: readonly string[] } {
    const spans = this.spans.slice(mark, until).sort((first, second) => first.end - second.end);
    const chain: Span[] = [];
    for (const span of spans) if (chain.length === 0 || span.start >= chain.at(-1)!.end) chain.push(span);
    return { count: chain.length, routes: chain.map((span) => span.route) };
  }

  /** Every request since `mark` (`METHOD path`), in arrival order. */
  routes(mark = 0): string[] {
    return this.spans.slice(mark).map((span) => span.route);
  }
}
