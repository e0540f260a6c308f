import type { S3Client } from "@aws-sdk/client-s3";

/** `protocol://host:port` of the client's endpoint, without user info or path, for error messages. */
export async function describeEndpoint(client: S3Client): Promise<string> {
  try {
    const endpoint = await client.config.endpoint?.();
    if (endpoint) return `${endpoint.protocol}//${endpoint.hostname}${endpoint.port ? `:${endpoint.port}` : ""}`;
    const region = await client.config.region();
    return `AWS S3 (${region})`;
  } catch {
    return "the configured S3 endpoint";
  }
}
