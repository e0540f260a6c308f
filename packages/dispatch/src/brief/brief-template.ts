import { OutpostError } from "@outpost/core";

/** A piece of a brief file: literal text, a `{{variable}}` or a `$(command)`. */
export type BriefPart =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "variable"; readonly name: string }
  | { readonly kind: "command"; readonly command: string };

/**
 * Splits a brief template in one pass, so substituted values are never scanned again (a variable holding
 * `$(rm -rf ~)` stays text). `\$(` and `\{{` are literal.
 */
export function parseBriefTemplate(template: string, file: string): BriefPart[] {
  const parts: BriefPart[] = [];
  let text = "";
  let index = 0;
  while (index < template.length) {
    if (template.startsWith("\\$(", index) || template.startsWith("\\{{", index)) {
      text += template.slice(index + 1, index + 3);
      index += 3;
    } else if (template.startsWith("{{", index)) {
      const end = template.indexOf("}}", index + 2);
      const name = end < 0 ? "" : template.slice(index + 2, end).trim();
      if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) throw malformed(file, index, "a {{ without a valid name and closing }}");
      pushText();
      parts.push({ kind: "variable", name });
      index = end + 2;
    } else if (template.startsWith("$(", index)) {
      const end = closingParenthesis(template, index + 2);
      if (end < 0) throw malformed(file, index, "a $( without its closing )");
      const command = template.slice(index + 2, end).trim();
      if (command === "") throw malformed(file, index, "an empty $( )");
      pushText();
      parts.push({ kind: "command", command });
      index = end + 1;
    } else {
      text += template[index];
      index += 1;
    }
  }
  pushText();
  return parts;

  function pushText(): void {
    if (text !== "") parts.push({ kind: "text", text });
    text = "";
  }
}

function closingParenthesis(template: string, from: number): number {
  let depth = 1;
  for (let index = from; index < template.length; index += 1) {
    const char = template[index];
    if (char === "(") depth += 1;
    else if (char === ")" && --depth === 0) return index;
  }
  return -1;
}

function malformed(file: string, offset: number, problem: string): OutpostError {
  return new OutpostError(
    "configuration",
    `Brief file ${file} has ${problem} at offset ${offset}. Fix the template (write \\$( or \\{{ for literal text).`,
    { details: { file, offset } },
  );
}
