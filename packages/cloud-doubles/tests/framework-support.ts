import type { ServerResponse } from "node:http";
export { FaultPlan, RoundTrips, startDoubleServer } from "@outpost/cloud-doubles";

/** A plain JSON answer for the framework's own tests. */
export function sendJsonForTest(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "application/json" }).end("{}");
}
