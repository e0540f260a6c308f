import { describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { descriptor } from "../src/docker-descriptor.js";

describe("the docker descriptor builds both modes", () => {
  it("mode isolated gives a remote provider; the default stays mounted; another mode is refused", async () => {
    expect(descriptor.options.map((option) => option.name)).toContain("mode");
    const isolated = await descriptor.createProvider({ mode: "isolated" });
    expect(isolated.placement).toBe("remote");
    expect(isolated.name).toBe("docker-isolated");
    const mounted = await descriptor.createProvider({});
    expect(mounted.placement).toBe(descriptor.placement);
    let error: unknown;
    try {
      await descriptor.createProvider({ mode: "cloud" });
    } catch (caught) {
      error = caught;
    }
    expect(isOutpostError(error, "configuration")).toBe(true);
  });
});
