import { execFileSync } from "node:child_process";
import { DESCRIPTOR_SPECIFICATION_VERSION, type ProviderDescriptor } from "@outpost/core";
import { descriptor as docker } from "@outpost/provider-docker";
import { describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { expect, it } from "vitest";
import { sandboxRemover } from "../src/sandbox-remover.js";

const exists = (id: string) =>
  execFileSync("docker", ["ps", "-aq", "--no-trunc", "--filter", `id=${id}`], { encoding: "utf8" }).trim() !== "";

describeGated(
  "a worker removes a killed attempt's container through its provider's descriptor",
  await dockerGate({ images: [TEST_IMAGE] }),
  () => {
    it("by the provider name the record holds, a mode's name included; an unknown provider is refused by name", async () => {
      const remove = sandboxRemover([docker]);
      for (const recorded of ["docker", "docker-isolated"]) {
        const id = execFileSync("docker", ["create", "--label", "outpost.test=sandbox-remover", TEST_IMAGE, "true"], {
          encoding: "utf8",
        }).trim();
        expect(exists(id)).toBe(true);
        await remove(id, recorded);
        expect(exists(id)).toBe(false);
        // Gone already: removed counts as done.
        await remove(id, recorded);
      }
      const withoutRemover: ProviderDescriptor = {
        ...docker,
        name: "plain",
        specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
        removeSandbox: undefined,
      };
      await expect(sandboxRemover([withoutRemover])("a".repeat(64), "plain")).rejects.toMatchObject({ code: "configuration" });
      await expect(remove("a".repeat(64), "moon")).rejects.toThrow(/provider "moon" cannot be removed by this worker/);
    }, 60_000);
  },
);
