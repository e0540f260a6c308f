import { S3Client } from "@aws-sdk/client-s3";
import { DESCRIPTOR_SPECIFICATION_VERSION, OutpostError, type TransportDescriptor } from "@outpost/core";
import { s3Transport } from "./s3-transport.js";

/**
 * How hosts open this transport by name: `s3://<bucket>[/<prefix>]`. The client comes from the AWS
 * environment (AWS_REGION, credentials chain); OUTPOST_S3_ENDPOINT (or AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL)
 * points it at an S3-compatible store, addressed by path.
 */
export const descriptor: TransportDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "transport",
  name: "s3",
  description: "objects in an S3 bucket (s3://bucket/prefix; AWS_REGION, AWS credentials, OUTPOST_S3_ENDPOINT for another store)",
  createTransport: (location) => {
    const [bucket, ...rest] = location.replace(/^\/+/, "").split("/");
    if (!bucket || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
      throw new OutpostError(
        "configuration",
        `${JSON.stringify(location)} names no S3 bucket; write s3://<bucket>[/<prefix>], e.g. s3://outpost-results/fleet.`,
      );
    const env = process.env;
    const endpoint = env.OUTPOST_S3_ENDPOINT ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
    const client = new S3Client({
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1",
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    });
    const prefix = rest.filter(Boolean).join("/");
    return s3Transport({ client, bucket, ...(prefix ? { prefix: `${prefix}/` } : {}) });
  },
};
