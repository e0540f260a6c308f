import { describe, expect, it } from "vitest";
import { assertSpecificationVersion, isOutpostError, SUPPORTED_SPECIFICATION_VERSIONS, type PluginContract } from "../src/index.js";

function failure(run: () => void) {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

describe("assertSpecificationVersion", () => {
  const contracts = Object.keys(SUPPORTED_SPECIFICATION_VERSIONS) as PluginContract[];

  it.each(contracts)("accepts every supported version of a %s", (contract) => {
    for (const version of SUPPORTED_SPECIFICATION_VERSIONS[contract]) {
      expect(() => assertSpecificationVersion({ name: "mine", specificationVersion: version }, contract)).not.toThrow();
    }
  });

  it.each(contracts)("refuses a %s of another version, naming the plugin and the supported versions", (contract) => {
    const newer = failure(() => assertSpecificationVersion({ name: "mine", specificationVersion: "v9" }, contract));
    expect(isOutpostError(newer, "configuration")).toBe(true);
    expect((newer as Error).message).toContain(`The ${contract} "mine" declares specificationVersion "v9"`);
    expect((newer as Error).message).toContain('supports "v1"');
    expect((newer as { details: object }).details).toMatchObject({
      contract,
      plugin: "mine",
      specificationVersion: "v9",
      supported: ["v1"],
    });
  });

  it.each(contracts)("accepts a %s that declares no version: the version the reference pages describe", (contract) => {
    expect(() => assertSpecificationVersion({ format: "bundle" }, contract)).not.toThrow();
  });

  it("refuses what is not an object, and versions of the wrong type", () => {
    expect(
      isOutpostError(
        failure(() => assertSpecificationVersion(undefined, "transport")),
        "configuration",
      ),
    ).toBe(true);
    expect((failure(() => assertSpecificationVersion(null, "agent adapter")) as Error).message).toContain("got null");
    expect((failure(() => assertSpecificationVersion({ specificationVersion: 1 }, "sandbox lease")) as Error).message).toContain(
      "The sandbox lease declares specificationVersion 1",
    );
  });
});
