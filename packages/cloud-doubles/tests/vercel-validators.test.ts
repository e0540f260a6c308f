import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startVercelDouble, type VercelDouble } from "@outpost/cloud-doubles/vercel";

// The SDK's own zod response schemas (not in its exports map, so loaded by file path).
const sdkRoot = dirname(createRequire(import.meta.url).resolve("@vercel/sandbox/package.json"));
const validators = (await import(pathToFileURL(join(sdkRoot, "dist/api-client/validators.js")).href)) as Record<
  string,
  { parse: (value: unknown) => unknown }
>;

let double: VercelDouble;
beforeAll(async () => void (double = await startVercelDouble()));
afterAll(() => double.close());

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }> {
  const url = `${double.url}${path}${path.includes("?") ? "&" : "?"}teamId=${double.credentials.teamId}`;
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${double.credentials.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    json: response.headers.get("content-type") === "application/json" ? JSON.parse(text) : undefined,
  };
}

it("answers every covered route with what the SDK's zod validators require", async () => {
  const created = await call("POST", "/v3/sandboxes", { projectId: double.credentials.projectId, networkPolicy: { mode: "deny-all" } });
  const parsed = validators.SandboxAndSessionResponse!.parse(created.json) as { sandbox: { name: string }; session: { id: string } };
  const session = parsed.session.id;
  validators.SandboxAndSessionResponse!.parse((await call("GET", `/v2/sandboxes/${parsed.sandbox.name}?resume=true`)).json);
  validators.SandboxesPaginationResponse!.parse((await call("GET", "/v2/sandboxes")).json);
  validators.SessionAndRoutesResponse!.parse((await call("GET", `/v2/sandboxes/sessions/${session}`)).json);
  const started = validators.CommandResponse!.parse(
    (await call("POST", `/v2/sandboxes/sessions/${session}/cmd`, { command: "sh", args: ["-c", "echo é; echo x >&2"] })).json,
  ) as { command: { id: string } };
  validators.CommandFinishedResponse!.parse(
    (await call("GET", `/v2/sandboxes/sessions/${session}/cmd/${started.command.id}?wait=true`)).json,
  );
  const logs = (await call("GET", `/v2/sandboxes/sessions/${session}/cmd/${started.command.id}/logs`)).text.split("\n").filter(Boolean);
  expect(logs.map((line) => validators.LogLine!.parse(JSON.parse(line)))).toEqual([
    { stream: "stdout", data: "é\n" },
    { stream: "stderr", data: "x\n" },
  ]);
  validators.CommandResponse!.parse(
    (await call("POST", `/v2/sandboxes/sessions/${session}/cmd/${started.command.id}/kill`, { signal: 15 })).json,
  );
  validators.StopSessionResponse!.parse((await call("POST", `/v2/sandboxes/sessions/${session}/stop`)).json);
  expect((await call("GET", `/v2/sandboxes/${parsed.sandbox.name}`)).status).toBe(404);
});

it("refuses a wrong token with 401 and the API's error body", async () => {
  const response = await fetch(`${double.url}/v2/sandboxes?teamId=${double.credentials.teamId}`, {
    headers: { authorization: "Bearer wrong" },
  });
  expect(response.status).toBe(401);
  expect(response.headers.get("x-vercel-id")).toMatch(/\S/);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
});
