import { posix } from "node:path";
import { OutpostError } from "@outpost/core";
import type { DockerProviderConfig, DockerVolume } from "./docker-provider-config.js";

const DOCKER_SOCKETS = ["/var/run/docker.sock", "/run/docker.sock"];

/** Refuses bad options up front with a `configuration` error naming the option and the fix. */
export function validateConfig(config: DockerProviderConfig): void {
  if (config.image !== undefined && (typeof config.image !== "string" || config.image.trim() === ""))
    refuse("image", "give an image name such as outpost-agents:latest");
  if (config.mode !== undefined && config.mode !== "mounted" && config.mode !== "isolated") refuse("mode", 'use "mounted" or "isolated"');
  if (config.user !== undefined) {
    for (const key of ["uid", "gid"] as const) {
      const value = config.user[key];
      if (!Number.isInteger(value) || value < 0 || value > 2 ** 31 - 1) refuse(`user.${key}`, "give a non-negative integer id");
    }
  }
  for (const [name, value] of Object.entries(config.variables ?? {})) {
    if (name === "" || name.includes("=") || name.includes("\0") || typeof value !== "string" || value.includes("\0")) {
      refuse(`variables.${name}`, 'names cannot be empty or contain "=" or NUL; values must be strings without NUL');
    }
  }
  for (const key of ["cpus", "memoryMb", "pidsLimit", "homeSizeMb", "tmpSizeMb"] as const) {
    const value = config[key];
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value <= 0)) refuse(key, "give a positive number");
  }
  if (config.pidsLimit !== undefined && !Number.isInteger(config.pidsLimit)) refuse("pidsLimit", "give a whole number");
  if (config.memoryMb !== undefined && config.memoryMb < 6) refuse("memoryMb", "Docker needs at least 6 MB");
  if (config.readOnlyRootFilesystem !== undefined && typeof config.readOnlyRootFilesystem !== "boolean")
    refuse("readOnlyRootFilesystem", "give true or false");
  if (config.readOnlyRootFilesystem === true && config.mode === "isolated") {
    refuse(
      "readOnlyRootFilesystem",
      "isolated mode copies the worktree into the root filesystem before start, so it cannot be read-only; use mounted mode or drop the option",
    );
  }
  if (config.network !== undefined && (typeof config.network !== "string" || config.network === ""))
    refuse("network", 'use "bridge", "none", "host" or a network name');
  for (const key of ["root", "home"] as const) {
    const value = config[key];
    if (
      value !== undefined &&
      (typeof value !== "string" || !posix.isAbsolute(value) || posix.normalize(value) === "/" || value.includes("\0"))
    ) {
      refuse(key, "give an absolute container path other than /");
    }
  }
  for (const [name, value] of Object.entries(config.labels ?? {})) {
    if (name.startsWith("dev.outpost.")) refuse(`labels.${name}`, "keys under dev.outpost. are reserved for the provider");
    if (typeof value !== "string") refuse(`labels.${name}`, "label values must be strings");
  }
  for (const volume of config.volumes ?? []) validateVolume(volume);
}

function validateVolume(volume: DockerVolume): void {
  if (typeof volume.source !== "string" || volume.source === "" || typeof volume.target !== "string" || !posix.isAbsolute(volume.target)) {
    refuse("volumes", "each volume needs a source (host path or volume name) and an absolute target");
  }
  for (const path of [volume.source, volume.target]) {
    if (path.includes(":") || path.includes(",")) refuse("volumes", `${JSON.stringify(path)} contains ":" or ","; use a plain path`);
  }
  const source = posix.normalize(volume.source);
  if (
    DOCKER_SOCKETS.includes(source) ||
    source.endsWith("/docker.sock") ||
    DOCKER_SOCKETS.some((socket) => socket.startsWith(`${source}/`)) ||
    source === "/"
  ) {
    refuse(
      "volumes",
      `mounting ${JSON.stringify(volume.source)} would expose the Docker socket, which gives root on the host; the provider never does that`,
    );
  }
}

function refuse(option: string, fix: string): never {
  throw new OutpostError("configuration", `Invalid dockerProvider option ${option}: ${fix}.`, { details: { option } });
}
