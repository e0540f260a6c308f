/** Test helpers: POST JSON to the model server and read SSE events back. */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

export function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice(7);
      const data = lines
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      return event === undefined ? { data } : { event, data };
    });
}

export function dataOf(events: readonly SseEvent[]): Record<string, unknown>[] {
  return events.filter((event) => event.data !== "[DONE]").map((event) => JSON.parse(event.data) as Record<string, unknown>);
}
