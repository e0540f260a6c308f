import { request } from "node:http";
import { OutpostError } from "@outpost/core";

/**
 * Removes a container (and its anonymous volumes) through the Docker engine API, at DOCKER_HOST or
 * /var/run/docker.sock; one already gone counts as removed. Used by `outpost clean` for sandboxes a
 * crashed dispatch left running.
 */
export function removeContainer(id: string): Promise<void> {
  if (!/^[0-9a-f]{12,64}$/.test(id))
    return Promise.reject(new OutpostError("configuration", `${JSON.stringify(id)} is not a container id.`));
  const host = process.env.DOCKER_HOST;
  const socketPath = host?.startsWith("unix://") ? host.slice("unix://".length) : host ? undefined : "/var/run/docker.sock";
  const url = host && !socketPath ? new URL(host.replace(/^tcp:/, "http:")) : undefined;
  return new Promise((done, fail) => {
    const call = request(
      {
        ...(socketPath ? { socketPath } : { host: url!.hostname, port: Number(url!.port || 2375) }),
        method: "DELETE",
        path: `/containers/${id}?force=1&v=1`,
        timeout: 30_000,
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => {
          if (response.statusCode === 204 || response.statusCode === 404) done();
          else
            fail(
              new OutpostError(
                "provider",
                `Docker refused to remove container ${id.slice(0, 12)} (HTTP ${response.statusCode}): ${body.trim()}. Remove it with \`docker rm -f ${id}\`.`,
                { details: { container: id } },
              ),
            );
        });
      },
    );
    call.on("timeout", () => call.destroy(new Error("no answer within 30 s")));
    call.on("error", (error) =>
      fail(
        new OutpostError(
          "provider",
          `Could not reach the Docker engine to remove container ${id.slice(0, 12)}: ${error.message}. Start Docker, or remove it later with \`docker rm -f ${id}\`.`,
          { cause: error, details: { container: id } },
        ),
      ),
    );
    call.end();
  });
}
