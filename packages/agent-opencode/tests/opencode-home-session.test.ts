import { describe, expect, it } from "vitest";
import { replacesHomeCopy, type OpencodeExport } from "../src/opencode-home-session.js";

const session = (messages: string[], updated: number): OpencodeExport => ({
  info: { id: "ses_x", directory: "/w", time: { updated } },
  messages: messages.map((id) => ({ info: { id } })),
});
const CAPTURED_AT = "2026-12-07T12:00:00.000Z";
const before = Date.parse(CAPTURED_AT) - 1000;
const after = Date.parse(CAPTURED_AT) + 1000;

describe("replacesHomeCopy: whether a restore deletes the session a shared home already holds", () => {
  it("imports over a copy holding every captured message (the conversation went on here), or changed after the capture", () => {
    expect(replacesHomeCopy(session(["m1", "m2"], before), session(["m1", "m2"], before), CAPTURED_AT)).toBe(false);
    expect(replacesHomeCopy(session(["m1", "m2", "m3"], before), session(["m1", "m2"], before), CAPTURED_AT)).toBe(false);
    expect(replacesHomeCopy(session(["m1", "side"], after), session(["m1", "m2"], before), CAPTURED_AT)).toBe(false);
  });

  it("imports over an earlier state of the captured conversation (opencode adds what it lacks)", () => {
    expect(replacesHomeCopy(session(["m1"], before), session(["m1", "m2"], before), CAPTURED_AT)).toBe(false);
  });

  it("replaces a copy that went another way before the capture: merged, the continuation would see both branches", () => {
    expect(replacesHomeCopy(session(["m1", "side"], before), session(["m1", "m2"], before), CAPTURED_AT)).toBe(true);
  });
});
