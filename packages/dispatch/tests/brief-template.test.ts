import { describe, expect, it } from "vitest";
import { parseBriefTemplate } from "../src/brief/brief-template.js";

describe("parseBriefTemplate", () => {
  it("splits text, variables and commands, with nested parentheses", () => {
    expect(parseBriefTemplate("Fix {{issue}} using $(git log -1 --format=%s $(git rev-parse HEAD)) now", "b.md")).toEqual([
      { kind: "text", text: "Fix " },
      { kind: "variable", name: "issue" },
      { kind: "text", text: " using " },
      { kind: "command", command: "git log -1 --format=%s $(git rev-parse HEAD)" },
      { kind: "text", text: " now" },
    ]);
  });

  it("keeps escaped \\$( and \\{{ literal", () => {
    expect(parseBriefTemplate("cost \\$(5) and \\{{x}}", "b.md")).toEqual([{ kind: "text", text: "cost $(5) and {{x}}" }]);
  });

  it("refuses unterminated or empty spans with code configuration", () => {
    for (const template of ["$(echo", "{{name", "{{}}", "$( )", "{{bad name}}"]) {
      expect(() => parseBriefTemplate(template, "b.md"), template).toThrow(expect.objectContaining({ code: "configuration" }));
    }
  });
});
