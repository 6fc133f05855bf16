// Lean's messages as CodeMirror lint diagnostics: exact ranges underlined, a gutter marker per
// line by severity, and a tooltip (hover, or keyboard focus via the lint panel) with the message
// and the coach's suggestion for that line.
import { forEachDiagnostic, setDiagnostics } from '@codemirror/lint';
import { StateField } from '@codemirror/state';
import { showTooltip } from '@codemirror/view';
import { renderCodeSpans } from './codespans.js';
import { leanPosition } from './positions.js';

function rangeOf(doc, d) {
  const from = leanPosition(doc, d.line, d.column);
  let to = d.end_column == null ? doc.lineAt(from).to : leanPosition(doc, d.end_line, d.end_column);
  if (to < from) to = from;
  // An empty range (e.g. "unexpected end of input") still needs something to underline.
  if (to === from && from < doc.length) to = Math.min(doc.lineAt(from).to, from + 1) || from + 1;
  return { from, to };
}

export function toLint(doc, result) {
  const byLine = new Map();
  for (const s of result.suggestions || []) {
    byLine.set(s.line, [...(byLine.get(s.line) || []), s.text]);
  }
  const out = [];
  const covered = new Set();
  for (const d of result.diagnostics || []) {
    const { from, to } = rangeOf(doc, d);
    const coach = byLine.get(d.line) || [];
    covered.add(d.line);
    const severity = d.kind === 'sorry_goal' ? 'info' : d.severity === 'information' ? 'info' : d.severity;
    const message = d.kind === 'sorry_goal' ? `Goal at this sorry:\n${d.message}` : d.message;
    const text = coach.length ? `${message}\n\nCoach: ${coach.join('\nCoach: ')}` : message;
    out.push({
      from, to, severity: ['error', 'warning', 'info', 'hint'].includes(severity) ? severity : 'info',
      source: 'Lean',
      message: text,
      renderMessage: () => renderCodeSpans(text),
    });
  }
  // A suggestion on a line Lean said nothing about is still shown there.
  for (const [line, texts] of byLine) {
    if (covered.has(line)) continue;
    const docLine = doc.line(Math.min(Math.max(line, 1), doc.lines));
    const start = docLine.from + (docLine.text.length - docLine.text.trimStart().length);
    const text = `Coach: ${texts.join('\nCoach: ')}`;
    out.push({
      from: start, to: Math.max(docLine.to, start), severity: 'hint', source: 'Coach',
      message: text, renderMessage: () => renderCodeSpans(text),
    });
  }
  return out;
}

export function showDiagnostics(view, result) {
  view.dispatch(setDiagnostics(view.state, toLint(view.state.doc, result)));
}

// Keyboard users get the same tooltip as a hover: when the cursor (with focus) is inside a
// diagnostic's range, its messages are shown under it.
// A click shows the hover tooltip already: the cursor's own would be a second, identical one.
// So after a pointer selection there is none, until the keyboard moves the cursor again.
export const cursorTooltip = StateField.define({
  create: () => ({ pointer: false, tooltip: null }),
  update(value, tr) {
    let pointer = value.pointer;
    if (tr.isUserEvent('select.pointer')) pointer = true;
    else if (tr.selection) pointer = false;
    if (pointer) return { pointer, tooltip: null };
    const head = tr.state.selection.main.head;
    const found = [];
    forEachDiagnostic(tr.state, (d, from, to) => {
      if (from <= head && head <= to) found.push(d);
    });
    if (!found.length) return { pointer, tooltip: null };
    return {
      pointer,
      tooltip: {
        pos: head,
        above: false,
        create() {
          const dom = document.createElement('div');
          dom.className = 'cm-cursor-diagnostic';
          dom.setAttribute('role', 'status');
          for (const d of found) {
            const item = document.createElement('div');
            item.className = `cm-diagnostic cm-diagnostic-${d.severity}`;
            if (d.renderMessage) item.append(d.renderMessage());
            else item.textContent = d.message;
            dom.append(item);
          }
          return { dom };
        },
      },
    };
  },
  provide: (field) => showTooltip.from(field, (value) => value.tooltip),
});
