import { describe, expect, it } from "vitest";
import { OutpostError, isOutpostError, OUTPOST_ERROR_CODES, abortError, throwIfAborted } from "@outpost/core";

describe("OutpostError", () => {
  it("keeps code, cause and frozen details", () => {
    const cause = new Error("root");
    const error = new OutpostError("provider", "Docker is down. Start dockerd.", { cause, details: { nested: { a: 1 } } });
    expect(error.code).toBe("provider");
    expect(error.cause).toBe(cause);
    expect(error.name).toBe("OutpostError");
    expect(Object.isFrozen(error.details)).toBe(true);
    expect(Object.isFrozen(error.details.nested)).toBe(true);
    expect(() => {
      (error.details as Record<string, unknown>).extra = 1;
    }).toThrow(TypeError);
  });

  it("is recognised across copies through the registered marker", () => {
    const error = new OutpostError("conflict", "lost the race");
    const foreign = Object.assign(Object.create(Error.prototype), { code: "conflict" });
    Object.defineProperty(foreign, Symbol.for("outpost.error.OutpostError"), { value: true });
    expect(isOutpostError(error)).toBe(true);
    expect(isOutpostError(error, "conflict")).toBe(true);
    expect(isOutpostError(error, "timeout")).toBe(false);
    expect(isOutpostError(foreign)).toBe(true);
    expect(isOutpostError(new Error("plain"))).toBe(false);
    expect(isOutpostError(undefined)).toBe(false);
  });

  it("lists every code once", () => {
    expect(new Set(OUTPOST_ERROR_CODES).size).toBe(OUTPOST_ERROR_CODES.length);
    expect(OUTPOST_ERROR_CODES).toContain("configuration");
  });

  it("turns an aborted signal into code aborted with the reason", () => {
    const controller = new AbortController();
    throwIfAborted(controller.signal, "upload");
    controller.abort(new Error("user pressed ctrl-c"));
    const error = abortError(controller.signal, "upload");
    expect(error.code).toBe("aborted");
    expect(error.message).toContain("user pressed ctrl-c");
    expect(() => throwIfAborted(controller.signal, "upload")).toThrow(/aborted/);
  });
});
