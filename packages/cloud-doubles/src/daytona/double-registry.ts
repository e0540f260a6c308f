import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { DoubleRefusal, optionalString } from "./double-http.js";
import { DoubleSandbox, type SandboxSpec } from "./double-sandbox.js";

/** The double's sandboxes, found by id or name as the API does. */
export class SandboxRegistry {
  private readonly all = new Map<string, DoubleSandbox>();

  constructor(
    private readonly base: string,
    private readonly toolboxUrl: () => string,
  ) {}

  /** POST /sandbox: validates the fields the SDK sends and starts the sandbox at once. */
  async create(body: Record<string, unknown>): Promise<DoubleSandbox> {
    const name = optionalString(body, "name");
    if (name !== undefined && this.find(name, false) !== undefined)
      throw new DoubleRefusal(409, "CONFLICT", `Sandbox with name ${name} already exists`);
    const spec: SandboxSpec = {
      name: name ?? "",
      ...(optionalString(body, "snapshot") === undefined ? {} : { snapshot: optionalString(body, "snapshot")! }),
      user: optionalString(body, "user") ?? "daytona",
      env: record(body, "env"),
      labels: record(body, "labels"),
      target: optionalString(body, "target") ?? "us",
      cpu: positive(body, "cpu", 1),
      memory: positive(body, "memory", 1),
      disk: positive(body, "disk", 3),
      networkBlockAll: body.networkBlockAll === true,
      ...(optionalString(body, "networkAllowList") === undefined ? {} : { networkAllowList: optionalString(body, "networkAllowList")! }),
      autoStopInterval: positive(body, "autoStopInterval", 15),
      autoArchiveInterval: positive(body, "autoArchiveInterval", 10080),
      autoDeleteInterval: typeof body.autoDeleteInterval === "number" ? body.autoDeleteInterval : -1,
      public: body.public === true,
    };
    const directory = await mkdtemp(join(this.base, "sandbox-"));
    const sandbox = new DoubleSandbox(spec, directory);
    await sandbox.prepare();
    this.all.set(sandbox.id, sandbox);
    return sandbox;
  }

  /** A sandbox by id or name; 404 when unknown or destroyed. */
  get(idOrName: string): DoubleSandbox {
    const sandbox = this.find(idOrName, false);
    if (sandbox === undefined) throw new DoubleRefusal(404, "NOT_FOUND", `Sandbox with ID or name ${idOrName} not found`);
    return sandbox;
  }

  list(): DoubleSandbox[] {
    return [...this.all.values()].filter((sandbox) => sandbox.state !== "destroyed");
  }

  /** The API's Sandbox DTO: every field the SDK reads. */
  json(sandbox: DoubleSandbox): Record<string, unknown> {
    const { spec } = sandbox;
    return {
      id: sandbox.id,
      name: spec.name === "" ? sandbox.id : spec.name,
      organizationId: "org_double",
      snapshot: spec.snapshot ?? "daytonaio/sandbox:double",
      user: spec.user,
      env: spec.env,
      labels: spec.labels,
      public: spec.public,
      networkBlockAll: spec.networkBlockAll,
      ...(spec.networkAllowList === undefined ? {} : { networkAllowList: spec.networkAllowList }),
      target: spec.target,
      cpu: spec.cpu,
      gpu: 0,
      memory: spec.memory,
      disk: spec.disk,
      state: sandbox.state,
      desiredState: sandbox.state,
      backupState: "None",
      autoStopInterval: spec.autoStopInterval,
      autoArchiveInterval: spec.autoArchiveInterval,
      autoDeleteInterval: spec.autoDeleteInterval,
      volumes: [],
      createdAt: sandbox.createdAt,
      updatedAt: sandbox.updatedAt,
      class: "small",
      daemonVersion: "outpost-double",
      runnerId: "runner-double",
      toolboxProxyUrl: this.toolboxUrl(),
    };
  }

  private find(idOrName: string, destroyed: boolean): DoubleSandbox | undefined {
    for (const sandbox of this.all.values()) {
      if (!destroyed && sandbox.state === "destroyed") continue;
      if (sandbox.id === idOrName || (sandbox.spec.name !== "" && sandbox.spec.name === idOrName)) return sandbox;
    }
    return undefined;
  }
}

function record(body: Record<string, unknown>, key: string): Record<string, string> {
  const value = body[key];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value) || Object.values(value).some((item) => typeof item !== "string")) {
    throw new DoubleRefusal(400, "BAD_REQUEST", `${key} must be an object of strings.`);
  }
  return value as Record<string, string>;
}

function positive(body: Record<string, unknown>, key: string, fallback: number): number {
  const value = body[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    throw new DoubleRefusal(400, "BAD_REQUEST", `${key} must be a non-negative number.`);
  return value;
}
