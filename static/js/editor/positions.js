// Lean counts columns in Unicode codepoints; the browser's strings count UTF-16 code units.
// `ℕ` is one of each, but `𝔽` (outside the BMP) is one codepoint and two code units.

// The UTF-16 offset within `text` of codepoint column `column` (clamped to the line).
export function codepointToOffset(text, column) {
  let offset = 0;
  let seen = 0;
  for (const ch of text) {
    if (seen >= column) break;
    offset += ch.length;
    seen += 1;
  }
  return offset;
}

// A document position for Lean's (1-based line, codepoint column), clamped into the document.
export function leanPosition(doc, line, column) {
  const number = Math.min(Math.max(line, 1), doc.lines);
  const docLine = doc.line(number);
  return docLine.from + codepointToOffset(docLine.text, column ?? 0);
}
