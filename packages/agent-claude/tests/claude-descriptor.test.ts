import { describe, expect, it } from "vitest";
import { DESCRIPTOR_SPECIFICATION_VERSION } from "@outpost/core";
import { descriptor, claudeAgent } from "../src/index.js";

describe("the claude descriptor", () => {
  it("describes this plugin and pins the release its feature table pins", () => {
    expect(descriptor).toMatchObject({
      specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
      kind: "agent",
      name: "claude",
      executable: "claude",
    });
    expect(descriptor.cli?.version).toBe(descriptor.features?.pinned);
    expect(descriptor.createAgent({}).name).toBe("claude");
  });

  it("takes endpoint: { baseUrl, apiKey } and the flat baseUrl/apiKey alike", () => {
    const endpoint = { baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-test" };
    const documented = descriptor.createAgent({ endpoint, executable: "/bin/true", model: "m" });
    const alias = claudeAgent({ ...endpoint, executable: "/bin/true", model: "m" });
    expect(documented.variables).toEqual(alias.variables);
    expect(Object.values(documented.variables ?? {})).toContain("sk-test");
  });
});
