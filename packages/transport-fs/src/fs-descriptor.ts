import { resolve } from "node:path";
import { DESCRIPTOR_SPECIFICATION_VERSION, OutpostError, type TransportDescriptor } from "@outpost/core";
import { fsTransport } from "./fs-transport.js";

/** How hosts open this transport by name: `fs://<folder>`, or a plain folder path (a shared file system for many machines). */
export const descriptor: TransportDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "transport",
  name: "fs",
  description: "files in a folder (fs://<folder> or a path; a network file system when machines share it)",
  createTransport: (location) => {
    if (location.trim() === "") throw new OutpostError("configuration", "The fs transport needs a folder: fs://<folder> or a path.");
    return fsTransport({ directory: resolve(location) });
  },
};
