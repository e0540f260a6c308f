import { OutpostError } from "@outpost/core";

interface DockerFailure {
  readonly statusCode?: number;
  readonly code?: string;
  readonly syscall?: string;
  readonly message?: string;
  readonly json?: { readonly message?: string } | null;
}

// Socket errors that mean no engine answers at the configured address (a missing socket file is ENOENT
// on connect). Only connect failures count: an ENOENT from reading a host file is something else.
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOENT", "EACCES", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND"]);

/** Wraps a dockerode failure in an OutpostError whose message says what to do. Never includes secrets. */
export function mapDockerError(error: unknown, action: string, image?: string): OutpostError {
  if (OutpostError.isInstance(error)) return error;
  const failure = (typeof error === "object" && error !== null ? error : {}) as DockerFailure;
  const reason = failure.json?.message ?? failure.message ?? String(error);
  const details = { action, statusCode: failure.statusCode, reason };
  if (failure.code !== undefined && UNREACHABLE.has(failure.code) && (failure.syscall === "connect" || failure.syscall === "getaddrinfo")) {
    return new OutpostError(
      "provider",
      `Could not ${action}: no Docker engine is reachable (${failure.code}). Start dockerd (or Docker Desktop) and check DOCKER_HOST or the socket path.`,
      { cause: error, details: { ...details, unavailable: true } },
    );
  }
  if (failure.statusCode === 404 && image !== undefined && /image/i.test(reason)) {
    return new OutpostError(
      "configuration",
      `Could not ${action}: the image ${JSON.stringify(image)} is not in the Docker engine. Build it (\`outpost image build --agent <name>\` tags outpost-agents:latest), or pull or load it first.`,
      { cause: error, details: { ...details, image } },
    );
  }
  if (failure.code === "ECONNRESET" || failure.code === "EPIPE") {
    return new OutpostError(
      "provider",
      `Could not ${action}: the connection to the Docker engine dropped (${failure.code}). Check that dockerd is still running, then retry.`,
      {
        cause: error,
        details: { ...details, unavailable: true },
      },
    );
  }
  if (failure.statusCode === 400) {
    return new OutpostError(
      "configuration",
      `Could not ${action}: the engine refused the options (${reason}). Fix the dockerProvider options.`,
      {
        cause: error,
        details,
      },
    );
  }
  return new OutpostError("provider", `Could not ${action}: ${reason}. Check the Docker engine (docker info) and retry.`, {
    cause: error,
    details,
  });
}
