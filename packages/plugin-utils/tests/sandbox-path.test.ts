import { describe, expect, it } from "vitest";
import { resolveCommandDirectory, resolveTransferPath } from "../src/index.js";

const lease = { root: "/work/root", home: "/home/agent" };

describe("resolveTransferPath", () => {
  it("resolves relative paths inside the root and absolute ones under root or home, with their anchor", () => {
    expect(resolveTransferPath(lease, "a/b", "upload destination")).toEqual({ path: "/work/root/a/b", anchor: "/work/root" });
    expect(resolveTransferPath(lease, "/home/agent/.x", "download source")).toEqual({ path: "/home/agent/.x", anchor: "/home/agent" });
  });

  it.each(["", "a\nb", "a\0b", "../x", "/etc/passwd", "/tmp/x"])("refuses %j", (path) => {
    expect(() => resolveTransferPath(lease, path, "upload destination")).toThrow(/Refused upload destination/);
  });
});

describe("resolveCommandDirectory", () => {
  it("takes an absolute directory as given and keeps a relative one inside the root", () => {
    expect(resolveCommandDirectory("/work/root", "/tmp/../opt", "directory")).toBe("/opt");
    expect(resolveCommandDirectory("/work/root", "sub", "directory")).toBe("/work/root/sub");
  });

  it.each(["", "../up", "a\nb", "a\0b"])("refuses %j", (path) => {
    expect(() => resolveCommandDirectory("/work/root", path, "directory")).toThrow(/Refused/);
  });
});
