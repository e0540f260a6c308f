/** A refusal a double answers with its API's error body (each double formats it, see DoubleServerOptions). */
export class DoubleRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}
