import type { Transport } from "../transport/transport.js";
import type { DESCRIPTOR_SPECIFICATION_VERSION } from "./plugin-descriptor.js";

/**
 * What a transport plugin says about itself, so a host opens one by name (`s3://bucket/prefix` is the
 * transport `s3` at `bucket/prefix`) without importing its package by name.
 */
export interface TransportDescriptor {
  readonly specificationVersion: typeof DESCRIPTOR_SPECIFICATION_VERSION;
  readonly kind: "transport";
  /** The name, and the scheme of its locations (`s3`). */
  readonly name: string;
  readonly description: string;
  /**
   * Opens the transport at `location` (what follows `<name>://`: a folder, `bucket/prefix`…). Endpoints and
   * credentials come from the environment the descriptor documents, never from the location.
   */
  readonly createTransport: (location: string) => Transport | Promise<Transport>;
}
