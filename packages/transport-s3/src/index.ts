export { s3Transport } from "./s3-transport.js";
export type { S3RemoveMode, S3TransportConfig } from "./s3-transport.js";
export { mapS3Error } from "./map-s3-error.js";
export type { S3ErrorContext } from "./map-s3-error.js";
export { descriptor } from "./s3-descriptor.js";
