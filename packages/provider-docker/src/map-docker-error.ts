import { OutpostError } from "@outpost/core";

interface DockerFailure {
  readonly statusCode?: number;
  readonly code?: string;
  readonly message?: string;
  readonly json?: { readonly message?: string } | null;
}

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOENT", "EACCES", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND"]);

/** Wraps a dockerode failure in an OutpostError whose message says what to do. Never includes secrets. */
export function mapDockerError(error: unknown, action: string, image?: string): OutpostError {
  if (OutpostError.isInstance(error)) return error;
  const failure = (typeof error === "object" && error !== null ? error : {}) as DockerFailure;
  const reason = failure.json?.message ?? failure.message ?? String(error);
  const details = { action, statusCode: failure.statusCode, reason };
  if (failure.code !== undefined && UNREACHABLE.has(failure.code)) {
    return new OutpostError(
      "provider",
      `Could not ${action}: no Docker engine is reachable (${failure.code}). Start dockerd (or Docker Desktop) and check DOCKER_HOST or the socket path.`,
      { cause: error, details: { ...details, unavailable: true } },
    );
  }
  if (failure.statusCode === 404 && image !== undefined && /image/i.test(reason)) {
    return new OutpostError(
      "configuration",
      `Could not ${action}: the image ${JSON.stringify(image)} is not in the Docker engine. Build or load it first (for the test images run tools/build-test-image.sh).`,
      { cause: error, details: { ...details, image } },
    );
  }
  if (failure.statusCode === 400) {
    return new OutpostError("configuration", `Could not ${action}: the engine refused the options (${reason}). Fix the dockerProvider options.`, {
      cause: error,
      details,
    });
  }
  return new OutpostError("provider", `Could not ${action}: ${reason}. Check the Docker engine (docker info) and retry.`, {
    cause: error,
    details,
  });
}
