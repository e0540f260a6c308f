import type { TransportReference } from "../transport/transport.js";

/** A captured native conversation on the host. */
export interface ConversationRecord {
  /** The agent's native id. */
  readonly id: string;
  /** Host path of the captured transcript or bundle. */
  readonly file: string;
  readonly format: string;
  /** Present when archived through a Transport. */
  readonly reference?: TransportReference;
}
