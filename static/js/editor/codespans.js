// Backquoted code in Lean's messages and the coach's suggestions (`exact h`), shown as code
// in the editor's tooltips as the server renders it in the panel: pieces, then DOM nodes.
// Text is only ever inserted as text nodes, never as HTML.

export function codeSpans(text) {
  const pieces = [];
  let last = 0;
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    if (match.index > last) pieces.push({ code: false, text: text.slice(last, match.index) });
    pieces.push({ code: true, text: match[1] });
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push({ code: false, text: text.slice(last) });
  return pieces;
}

export function renderCodeSpans(text, doc = document) {
  const span = doc.createElement('span');
  for (const piece of codeSpans(text)) {
    if (piece.code) {
      const code = doc.createElement('code');
      code.textContent = piece.text;
      span.append(code);
    } else {
      span.append(doc.createTextNode(piece.text));
    }
  }
  return span;
}
