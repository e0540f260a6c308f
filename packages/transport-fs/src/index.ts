export { fsTransport } from "./fs-transport.js";
export type { FsTransportConfig } from "./fs-transport.js";
export { descriptor } from "./fs-descriptor.js";
