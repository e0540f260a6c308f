import { S3Client } from "@aws-sdk/client-s3";
import type { MotoServer } from "@outpost/testkit/gates";

/** An S3 client for the moto server, destroyed when the server stops. */
export function s3Client(server: MotoServer, options?: Parameters<MotoServer["clientSettings"]>[0]): S3Client {
  const client = new S3Client(server.clientSettings(options));
  server.onStop(() => client.destroy());
  return client;
}
