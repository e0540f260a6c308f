import { WRAPPER_HEADER_BYTES } from "@outpost/plugin-utils";
import type { WrapperStart } from "@outpost/plugin-utils";

/**
 * Reads FRAMED_COMMAND_WRAPPER's header off the front of stdout *bytes* and hands the rest on as bytes (the
 * text-based WrapperHeader would decode each piece on its own and break invalid UTF-8 and split characters).
 */
export class WrapperStartReader {
  private header = Buffer.alloc(0);
  start: WrapperStart | undefined;

  constructor(private readonly onStdout: (bytes: Buffer) => void) {}

  readonly push = (bytes: Buffer): void => {
    if (this.start !== undefined) return this.onStdout(bytes);
    this.header = Buffer.concat([this.header, bytes]);
    const first = this.header.subarray(0, 1).toString("latin1");
    if (first === "D") this.start = { missing: "directory" };
    else if (first === "X") this.start = { missing: "executable" };
    else if (this.header.length >= WRAPPER_HEADER_BYTES) {
      this.start = { pid: Number(this.header.subarray(1, WRAPPER_HEADER_BYTES - 1).toString("latin1")) };
      const rest = this.header.subarray(WRAPPER_HEADER_BYTES);
      if (rest.length > 0) this.onStdout(rest);
    }
  };
}
