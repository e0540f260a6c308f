import { describe, expect, it } from "vitest";
import { DESCRIPTOR_SPECIFICATION_VERSION } from "@outpost/core";
import { descriptor } from "../src/index.js";

describe("the local provider's descriptor", () => {
  it("describes the provider and builds it, with the whole environment only when asked", async () => {
    expect(descriptor).toMatchObject({
      specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
      kind: "provider",
      name: "local",
      placement: "host",
    });
    expect(descriptor.options.map((option) => option.name)).toEqual(["inheritEnvironment"]);
    const provider = await descriptor.createProvider({});
    expect(provider).toMatchObject({ name: "local", placement: "host" });
    expect((await descriptor.check?.())?.ok).toBe(true);
  });
});
