import { describe, expect, it } from "vitest";
import { flattenEndpoint } from "../src/index.js";

describe("flattenEndpoint: one endpoint shape, the flat one kept as an alias", () => {
  it("reads endpoint into the flat fields, endpoint winning field by field", () => {
    expect(flattenEndpoint({ endpoint: { baseUrl: "http://a", apiKey: "k" } })).toMatchObject({ baseUrl: "http://a", apiKey: "k" });
    expect(flattenEndpoint({ endpoint: { baseUrl: "http://a" }, baseUrl: "http://old", apiKey: "old" })).toMatchObject({
      baseUrl: "http://a",
      apiKey: "old",
    });
  });

  it("leaves the flat alias alone without an endpoint", () => {
    const options = { baseUrl: "http://old", apiKey: "k", model: "m" };
    expect(flattenEndpoint(options)).toBe(options);
  });
});
