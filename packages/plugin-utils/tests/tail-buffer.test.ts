import { describe, expect, it } from "vitest";
import { TailBuffer } from "../src/index.js";

describe("TailBuffer", () => {
  it("keeps everything under the limit and exactly the last bytes over it", () => {
    const tail = new TailBuffer(10);
    tail.push(Buffer.from("abc"));
    expect(tail.text()).toBe("abc");
    for (const chunk of ["defgh", "ijklmnop", "q"]) tail.push(Buffer.from(chunk));
    expect(tail.text()).toBe("hijklmnopq");
  });

  it("drops a multi-byte character cut by the limit instead of garbling it", () => {
    const tail = new TailBuffer(5);
    tail.push(Buffer.from("x😀ab")); // the emoji is 4 bytes: the last 5 bytes start inside it
    expect(tail.text()).toBe("ab");
  });

  it("keeps nothing with a limit of 0", () => {
    const tail = new TailBuffer(0);
    tail.push(Buffer.from("anything"));
    expect(tail.text()).toBe("");
  });
});
