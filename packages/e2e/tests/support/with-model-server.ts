import { startModelServer, type ModelServer, type Responder } from "@outpost/testkit/model-server";

/** Runs `run` against a scripted model server answering with `responder`, closed afterwards whatever happens. */
export async function withModelServer<T>(responder: Responder, run: (server: ModelServer) => Promise<T>): Promise<T> {
  const server = await startModelServer({ responder });
  try {
    return await run(server);
  } finally {
    await server.close();
  }
}
