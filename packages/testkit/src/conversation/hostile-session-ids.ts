/** Ids that name no single session: each must be refused with an OutpostError, never resolved to a path. */
export const HOSTILE_SESSION_IDS = ["", ".", "..", "../escape", "a/b", "/etc/passwd", "x\0y", "..\\escape"] as const;
