import type { DoubleCommand, DoubleSandbox, DoubleSession } from "./double-sandbox.js";

/** The session object (validators' `Session`): every required field, and the optional ones the double knows. */
export function sessionJson(session: DoubleSession): Record<string, unknown> {
  const { settings } = session.sandbox;
  return {
    id: session.id,
    memory: settings.vcpus * 2048,
    vcpus: settings.vcpus,
    region: settings.region,
    ...(settings.runtime === undefined ? {} : { runtime: settings.runtime }),
    timeout: session.timeout,
    status: session.status,
    requestedAt: session.requestedAt,
    startedAt: session.startedAt,
    ...(session.requestedStopAt === undefined ? {} : { requestedStopAt: session.requestedStopAt }),
    ...(session.stoppedAt === undefined ? {} : { stoppedAt: session.stoppedAt, duration: session.stoppedAt - session.startedAt }),
    createdAt: session.requestedAt,
    cwd: session.sandbox.cwd,
    updatedAt: session.stoppedAt ?? session.startedAt,
    ...(settings.networkPolicy === undefined ? {} : { networkPolicy: settings.networkPolicy }),
  };
}

/** The sandbox object (validators' `Sandbox`). */
export function sandboxJson(sandbox: DoubleSandbox): Record<string, unknown> {
  const { settings } = sandbox;
  return {
    name: settings.name,
    persistent: settings.persistent,
    region: settings.region,
    vcpus: settings.vcpus,
    memory: settings.vcpus * 2048,
    ...(settings.runtime === undefined ? {} : { runtime: settings.runtime }),
    ...(settings.image === undefined ? {} : { image: settings.image }),
    timeout: settings.timeout,
    ...(settings.networkPolicy === undefined ? {} : { networkPolicy: settings.networkPolicy }),
    createdAt: sandbox.createdAt,
    updatedAt: sandbox.updatedAt,
    currentSessionId: sandbox.session.id,
    status: sandbox.session.status,
    statusUpdatedAt: sandbox.updatedAt,
    cwd: sandbox.cwd,
    ...(settings.tags === undefined ? {} : { tags: settings.tags }),
  };
}

/** The command object (validators' `Command`; `CommandFinished` once exitCode is set). */
export function commandJson(command: DoubleCommand, sessionId: string): Record<string, unknown> {
  const { process } = command;
  return {
    id: command.id,
    name: command.name,
    args: [...command.args],
    cwd: command.cwd,
    sessionId,
    exitCode: process.exitCode,
    ...(process.finishedAt === undefined ? {} : { durationMs: process.finishedAt - process.startedAt }),
    startedAt: process.startedAt,
  };
}
