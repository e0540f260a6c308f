/**
 * Reports each event kind a decoder does not know once per turn through the turn's diagnostic channel
 * (the line itself stays a `raw` event). Decoders call `seen` from their fallback branch.
 */
export class UnknownKinds {
  private readonly reported = new Set<string>();

  constructor(
    private readonly agent: string,
    private readonly diagnostic: ((message: string) => void) | undefined,
  ) {}

  seen(kind: string): void {
    if (this.diagnostic === undefined || this.reported.has(kind) || this.reported.size >= 100) return;
    this.reported.add(kind);
    const shown = kind.length > 80 ? `${kind.slice(0, 80)}…` : kind;
    try {
      this.diagnostic(`${this.agent}: unknown event kind ${JSON.stringify(shown)}, kept as a raw event (reported once per turn).`);
    } catch {
      // A failing diagnostic sink never breaks decoding.
    }
  }

  /** A new turn in the same stream reports its kinds again. */
  reset(): void {
    this.reported.clear();
  }
}
