import { mkdtemp } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { sandboxJson, sessionJson } from "./double-json.js";
import { DoubleRefusal, optionalNumber, optionalString, readJson, sendJson, stringRecord } from "./double-request.js";
import { DoubleSandbox, type ApiNetworkPolicy } from "./double-sandbox.js";

const DEFAULT_TIMEOUT_MS = 5 * 60 * 1000;
let created = 0;

/** The sandboxes of one double, by name. */
export class SandboxRegistry {
  readonly byName = new Map<string, DoubleSandbox>();

  constructor(
    private readonly base: string,
    private readonly createDelayMs: () => number,
  ) {}

  /** POST /v3/sandboxes (image) and /v2/sandboxes (runtime). */
  async create(request: IncomingMessage, response: ServerResponse, projectId: string): Promise<void> {
    const body = await readJson(request);
    if (body.projectId !== projectId) throw new DoubleRefusal(403, "forbidden", "The token has no access to this project.");
    const name = optionalString(body, "name") ?? `sbx-${Date.now().toString(36)}-${(++created).toString(36)}`;
    if (!/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,62}$/.test(name))
      throw new DoubleRefusal(400, "bad_request", `Invalid sandbox name ${JSON.stringify(name)}.`);
    if (this.byName.has(name)) throw new DoubleRefusal(409, "conflict", `A sandbox named ${name} exists already.`);
    const resources = body.resources as { vcpus?: unknown } | undefined;
    const vcpus = resources?.vcpus ?? 2;
    if (typeof vcpus !== "number" || !Number.isInteger(vcpus) || vcpus < 1 || vcpus > 8)
      throw new DoubleRefusal(400, "bad_request", "`resources.vcpus` must be 1 to 8.");
    const runtime = optionalString(body, "runtime");
    const image = optionalString(body, "image");
    if (runtime !== undefined && image !== undefined)
      throw new DoubleRefusal(400, "bad_request", "`runtime` and `image` cannot be used together.");
    const tags = body.tags === undefined ? undefined : stringRecord(body, "tags");
    const delay = this.createDelayMs();
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    const sandbox = new DoubleSandbox(
      {
        name,
        persistent: body.persistent === true,
        vcpus,
        timeout: optionalNumber(body, "timeout") ?? DEFAULT_TIMEOUT_MS,
        region: optionalString(body, "region") ?? "iad1",
        ...(runtime === undefined ? {} : { runtime }),
        ...(image === undefined ? {} : { image: `${image}@sha256:${"0".repeat(64)}` }),
        env: stringRecord(body, "env"),
        ...(tags === undefined ? {} : { tags }),
        ...(body.networkPolicy === undefined ? {} : { networkPolicy: networkPolicy(body.networkPolicy) }),
      },
      await mkdtemp(join(this.base, `${name}-`)),
    );
    await sandbox.prepare();
    this.byName.set(name, sandbox);
    sendJson(response, 200, { sandbox: sandboxJson(sandbox), session: sessionJson(sandbox.session), routes: [] });
  }

  /** GET /v2/sandboxes/{name}[?resume=true]: a stopped persistent sandbox boots a new session when resumed. */
  get(name: string, resume: boolean, response: ServerResponse): void {
    const sandbox = this.find(name);
    let resumed = false;
    if (resume && sandbox.session.status !== "running") {
      sandbox.boot();
      resumed = true;
    }
    sendJson(response, 200, { sandbox: sandboxJson(sandbox), session: sessionJson(sandbox.session), routes: [], resumed });
  }

  list(response: ServerResponse): void {
    const sandboxes = [...this.byName.values()].filter((sandbox) => !sandbox.gone).map(sandboxJson);
    sendJson(response, 200, { sandboxes, pagination: { count: sandboxes.length, next: null } });
  }

  async remove(name: string, response: ServerResponse): Promise<void> {
    const sandbox = this.find(name);
    await sandbox.destroy();
    this.byName.delete(name);
    sendJson(response, 200, { sandbox: sandboxJson(sandbox) });
  }

  find(name: string): DoubleSandbox {
    const sandbox = this.byName.get(name);
    if (sandbox === undefined || sandbox.gone) throw new DoubleRefusal(404, "sandbox_not_found", `No sandbox named ${name}.`);
    return sandbox;
  }

  findSession(id: string): { sandbox: DoubleSandbox; session: DoubleSandbox["session"] } {
    for (const sandbox of this.byName.values()) {
      const session = sandbox.sessions.find((candidate) => candidate.id === id);
      if (session === undefined) continue;
      if (sandbox.gone) throw new DoubleRefusal(404, "sandbox_not_found", `The sandbox of session ${id} was deleted.`);
      return { sandbox, session };
    }
    throw new DoubleRefusal(404, "session_not_found", `No session ${id}.`);
  }
}

/** The request policy (`{ mode }` or `{ allow, subnets }`) as the API reports it back. */
function networkPolicy(value: unknown): ApiNetworkPolicy {
  const policy = value as { mode?: unknown; allow?: unknown; subnets?: { allow?: string[]; deny?: string[] } };
  if (policy.mode === "allow-all" || policy.mode === "deny-all") return { mode: policy.mode };
  if (policy.mode !== undefined) throw new DoubleRefusal(400, "bad_request", "`networkPolicy.mode` must be allow-all or deny-all.");
  const allow = Array.isArray(policy.allow)
    ? policy.allow
    : typeof policy.allow === "object" && policy.allow !== null
      ? Object.keys(policy.allow)
      : [];
  if (allow.some((domain) => typeof domain !== "string"))
    throw new DoubleRefusal(400, "bad_request", "`networkPolicy.allow` must list domains.");
  return {
    mode: "custom",
    allowedDomains: allow as string[],
    ...(policy.subnets?.allow ? { allowedCIDRs: policy.subnets.allow } : {}),
    ...(policy.subnets?.deny ? { deniedCIDRs: policy.subnets.deny } : {}),
  };
}
