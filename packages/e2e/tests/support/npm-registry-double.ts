import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One package version the double serves: its package.json and its `npm pack` tarball. */
export interface ServedPackage {
  readonly manifest: Readonly<Record<string, unknown>> & { readonly name: string; readonly version: string };
  readonly tarball: string;
}

export interface NpmRegistryDouble {
  readonly url: string;
  /** Every request path, in order (e.g. `/@anthropic-ai%2fclaude-code`, `/-/claude-code-2.1.332.tgz`). */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/**
 * A tiny npm registry on 127.0.0.1: packuments (`GET /<name>`, scoped names as `@scope%2fname`) and tarballs
 * (`GET /-/<file>`), with the integrity npm checks. Anything else is a 404, as for an unknown package.
 */
export async function startNpmRegistryDouble(packages: readonly ServedPackage[]): Promise<NpmRegistryDouble> {
  const requests: string[] = [];
  const tarballs = new Map<string, Buffer>();
  const packuments = new Map<string, (base: string) => unknown>();
  for (const served of packages) {
    const bytes = readFileSync(served.tarball);
    const file = `${served.manifest.name.replace("/", "-").replace("@", "")}-${served.manifest.version}.tgz`;
    tarballs.set(`/-/${file}`, bytes);
    const dist = {
      integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
      shasum: createHash("sha1").update(bytes).digest("hex"),
    };
    packuments.set(served.manifest.name, (base) => ({
      name: served.manifest.name,
      "dist-tags": { latest: served.manifest.version },
      versions: { [served.manifest.version]: { ...served.manifest, dist: { ...dist, tarball: `${base}/-/${file}` } } },
    }));
  }
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    requests.push(path);
    const tarball = tarballs.get(path);
    if (tarball) {
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": tarball.length });
      response.end(tarball);
      return;
    }
    const packument = packuments.get(decodeURIComponent(path.slice(1)));
    if (packument) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(packument(base)));
      return;
    }
    response.writeHead(404, { "content-type": "application/json" });
    response.end('{"error":"Not found"}');
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
