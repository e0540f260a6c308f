import { describe, expect, it } from "vitest";
import { FaultPlan, RoundTrips, startDoubleServer, sendJsonForTest } from "./framework-support.js";

describe("double framework", () => {
  it("counts requests sent together as one serial round trip, and requests one after the other apart", async () => {
    const served = await startDoubleServer({
      handle: async (_request, response) => sendJsonForTest(response),
      refuse: (response, refusal) => void response.writeHead(refusal.status).end(),
      requestId: { header: "x-request-id", value: (sequence) => `req_${sequence}` },
      faults: new FaultPlan({}),
    });
    try {
      served.latency.set(20);
      const mark = served.roundTrips.mark();
      await Promise.all([fetch(`${served.origin}/a`), fetch(`${served.origin}/b`), fetch(`${served.origin}/c`)]);
      await fetch(`${served.origin}/d`);
      await fetch(`${served.origin}/e`);
      expect(served.roundTrips.serial(mark).count).toBe(3);
      expect(served.roundTrips.routes(mark)).toHaveLength(5);
    } finally {
      await served.close();
    }
  });

  it("answers armed faults with the API's refusal, the given number of times", async () => {
    const faults = new FaultPlan({ 503: "unavailable" });
    const served = await startDoubleServer({
      handle: async (_request, response) => sendJsonForTest(response),
      refuse: (response, refusal) => void response.writeHead(refusal.status, { ...refusal.headers }).end(refusal.code),
      requestId: { header: "x-request-id", value: (sequence) => `req_${sequence}` },
      faults,
    });
    try {
      faults.add({ status: 503, match: "/create", times: 2, retryAfter: 1 });
      const statuses = [];
      for (const path of ["/create", "/other", "/create", "/create"]) statuses.push((await fetch(`${served.origin}${path}`)).status);
      expect(statuses).toEqual([503, 200, 503, 200]);
      expect(new RoundTrips().serial().count).toBe(0);
    } finally {
      await served.close();
    }
  });
});
