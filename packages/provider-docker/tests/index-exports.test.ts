import { describe, expect, it } from "vitest";
import * as barrel from "@outpost/provider-docker";
import { isOutpostError } from "@outpost/core";

describe("@outpost/provider-docker exports", () => {
  it("exports the factory, reap, the lease class, constants, the error mapper and the CLI's image and removal commands by name", () => {
    expect(Object.keys(barrel).sort()).toEqual(
      [
        "DEFAULT_DOCKER_IMAGE",
        "DEFAULT_HOME",
        "DEFAULT_ROOT",
        "DEFAULT_USER",
        "DOCKER_CAPABILITIES",
        "DockerLease",
        "IMAGE_ROOT",
        "LEASE_LABEL",
        "OWNER_HOST_LABEL",
        "OWNER_PID_LABEL",
        "PUBLIC_BASE_DIGEST",
        "PUBLIC_BASE_IMAGE",
        "RETAIN_LABEL",
        "descriptor",
        "createDockerSandboxProvider",
        "dockerProvider",
        "dockerReachable",
        "imageBuildCommand",
        "imageRecipe",
        "mapDockerError",
        "reap",
        "removeSandbox",
      ].sort(),
    );
    expect(typeof barrel.DockerLease).toBe("function");
    expect(barrel.DOCKER_CAPABILITIES).toEqual({ liveInput: true, fileTransfers: true, uploadBatch: true, homeFiles: true });
  });

  it("exports the reference pages' name, createDockerSandboxProvider, for the same factory", () => {
    expect(barrel.createDockerSandboxProvider).toBe(barrel.dockerProvider);
    expect(barrel.createDockerSandboxProvider()).toMatchObject({ name: "docker", placement: "mounted" });
  });

  it("a provider is created without touching the engine and reports its placement", () => {
    expect(barrel.dockerProvider().placement).toBe("mounted");
    expect(barrel.dockerProvider({ mode: "isolated" }).placement).toBe("remote");
    expect(barrel.dockerProvider({ variables: { A: "1" } }).variables).toEqual({ A: "1" });
  });

  it("mapDockerError turns engine failures into actionable OutpostErrors", () => {
    const unreachable = barrel.mapDockerError(
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED", syscall: "connect" }),
      "ping",
    );
    expect(isOutpostError(unreachable, "provider")).toBe(true);
    expect(unreachable.message).toMatch(/no Docker engine is reachable.*Start dockerd/);
    const hostFile = barrel.mapDockerError(Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT", syscall: "open" }), "upload");
    expect(hostFile.message).not.toMatch(/no Docker engine/);
    const missing = barrel.mapDockerError({ statusCode: 404, json: { message: "No such image: x:y" } }, "create", "x:y");
    expect(isOutpostError(missing, "configuration")).toBe(true);
    expect(missing.message).toMatch(/outpost image build --agent <name>/);
    const refused = barrel.mapDockerError({ statusCode: 400, json: { message: "invalid mount config" } }, "create");
    expect(isOutpostError(refused, "configuration")).toBe(true);
  });
});
