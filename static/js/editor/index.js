// The student's Lean editor (CodeMirror 6), bundled by esbuild into static/js/editor.bundle.js
// (Makefile EDITOR_BUNDLE). It enhances <textarea data-lean-editor>: without JavaScript the
// textarea and the form work as they are.
//
// Line numbers: the editor shows the posed statement as read-only first line(s) and the proof
// after it, so its line numbers are those of "statement + proof": the numbering of Lean's
// messages in the feedback panel and of the coach's "line N".
import { EditorState, Transaction } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  Decoration, ViewPlugin, tooltips,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { syntaxHighlighting, bracketMatching } from '@codemirror/language';
import { lintGutter, lintKeymap } from '@codemirror/lint';
import { lean, leanHighlight } from './lean-language.js';
import { unicodeInput } from './unicode.js';
import { showDiagnostics, cursorTooltip } from './diagnostics.js';
import { showGoals, firstProblemLine } from './goals.js';
import { liveGoals } from './live.js';

// The statement's lines cannot be edited: an edit that reaches into them acts on the proof
// part only (Ctrl+A then Delete or typing replaces the whole proof, not nothing); an edit
// wholly inside the statement is refused.
function readOnlyPrefix(proofStart) {
  return EditorState.transactionFilter.of((tr) => {
    if (!tr.docChanged) return tr;
    let touches = false;
    tr.changes.iterChangedRanges((fromA) => { if (fromA < proofStart) touches = true; });
    if (!touches) return tr;
    const changes = [];
    let cursor = null;
    tr.changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
      if (toA < proofStart) return;
      const from = Math.max(fromA, proofStart);
      const to = Math.max(toA, proofStart);
      if (from === to && inserted.length === 0) return;
      changes.push({ from, to, insert: inserted });
      cursor = from + inserted.length;
    });
    if (!changes.length) return [];
    // Offsets of the start state; the cursor lands after the last change's text.
    let shift = 0;
    for (const c of changes.slice(0, -1)) shift += c.insert.length - (c.to - c.from);
    return {
      changes,
      selection: { anchor: cursor + shift },
      userEvent: tr.annotation(Transaction.userEvent),
      scrollIntoView: true,
    };
  });
}

function statementShading(statementLines) {
  const mark = Decoration.line({ attributes: { class: 'cm-statement-line', title: 'Statement (read-only)' } });
  return ViewPlugin.fromClass(class {
    constructor(view) { this.decorations = this.build(view); }
    update(update) { if (update.docChanged) this.decorations = this.build(update.view); }
    build(view) {
      const ranges = [];
      for (let n = 1; n <= Math.min(statementLines, view.state.doc.lines); n++) ranges.push(mark.range(view.state.doc.line(n).from));
      return Decoration.set(ranges);
    }
  }, { decorations: (p) => p.decorations });
}

// Tooltips (Lean's messages) stay below the page's header: at 375 px a message above its
// line would otherwise cover the header and its menu.
const belowHeader = tooltips({
  tooltipSpace: () => {
    const header = document.querySelector('header.topbar');
    const top = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
    return { top, left: 0, bottom: window.innerHeight, right: window.innerWidth };
  },
});

function draftKey(textarea) {
  return textarea.dataset.draftKey ? `leancoach:draft:${textarea.dataset.draftKey}` : null;
}

function loadDraft(textarea) {
  const key = draftKey(textarea);
  if (!key) return null;
  try { return localStorage.getItem(key); } catch (e) { return null; }
}

function saveDraft(textarea, text) {
  const key = draftKey(textarea);
  if (!key) return;
  try { localStorage.setItem(key, text); } catch (e) { /* storage full or off: nothing to do */ }
}

// The attempts whose results this page's editor draws: the one the page was drawn with, and
// each one a submit from this page made (its answer's panel tells the page's socket what it
// shows, through a hidden ws-send). A submit from another tab also reaches this page's panel,
// but its messages belong to that tab's text, not to what this editor holds.
const attemptsDrawnHere = new Set();

function panelAttempt() {
  const panel = document.getElementById('attempt-panel');
  return { panel, pk: Number(panel?.dataset.attempt) };
}

function rememberPageAttempt() {
  const { pk } = panelAttempt();
  if (pk) attemptsDrawnHere.add(pk);
}

function drawnHere(attempt) {
  const { panel, pk } = panelAttempt();
  if (pk && panel.querySelector('[ws-send]')) attemptsDrawnHere.add(pk);
  return attemptsDrawnHere.has(Number(attempt));
}

function currentResult() {
  const node = document.getElementById('attempt-feedback');
  if (!node || !node.dataset.leanResult) return null;
  try { return JSON.parse(node.dataset.leanResult); } catch (e) { return null; }
}

// One editor (editable over a form's textarea, or a read-only view of an attempt).
function createEditor({ host, statement, proof, readOnly, textarea, labelId, describedBy }) {
  const statementLines = statement.split('\n').length;
  const proofStart = statement.length + 1;
  const goalPanel = document.getElementById('goal-view');
  let view = null;
  const unicode = unicodeInput(() => view);
  let lastResultKey = null;
  let saveTimer = null;
  let shown = null; // the result drawn: the latest attempt's, or the latest goals while typing
  const live = readOnly || !textarea ? null : liveGoals({
    textarea,
    proofText: () => proofText(view.state),
    onAnswer: (data) => {
      shown = data;
      showDiagnostics(view, data);
      refreshGoals(cursorLine(view.state));
    },
    note: (text, state) => {
      const node = goalPanel?.querySelector('.goal-live');
      if (!node) return;
      node.textContent = text;
      node.dataset.state = state;
    },
  });

  const proofText = (state) => state.doc.sliceString(proofStart);
  const cursorLine = (state) => state.doc.lineAt(state.selection.main.head).number;

  function refreshGoals(line) {
    if (!goalPanel) return;
    const text = view.state.doc.line(Math.min(line, view.state.doc.lines)).text;
    showGoals(goalPanel, shown, line, text);
  }

  // The panel shows another tab's attempt: say so, beside this editor's own text.
  function markOtherTab(result) {
    const note = document.querySelector('#attempt-panel [data-other-tab-note]');
    if (note) note.hidden = drawnHere(result.attempt);
  }

  function applyResult() {
    const result = currentResult();
    if (!result) return;
    if (!readOnly) markOtherTab(result);
    if (!readOnly && !drawnHere(result.attempt)) return;
    const key = JSON.stringify([result.attempt, result.status, result.diagnostics, result.suggestions, result.tactics]);
    if (key === lastResultKey) return;
    lastResultKey = key;
    shown = result;
    showDiagnostics(view, result);
    // After a failed check, show the first unsolved goal: the goals at the first problem.
    const problem = result.valid === false ? firstProblemLine(result) : null;
    refreshGoals(problem ?? cursorLine(view.state));
  }

  const extensions = [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightActiveLine(),
    drawSelection(),
    bracketMatching(),
    lean,
    syntaxHighlighting(leanHighlight),
    lintGutter(),
    cursorTooltip,
    belowHeader,
    statementShading(statementLines),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({
      'aria-labelledby': labelId || '',
      ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      'aria-multiline': 'true',
    }),
    EditorView.updateListener.of((update) => {
      if (update.selectionSet || update.docChanged) {
        refreshGoals(cursorLine(update.state));
      }
      if (update.docChanged && live) live.changed();
      if (update.docChanged && textarea) {
        textarea.value = proofText(update.state);
        clearTimeout(saveTimer);
        saveTimer = setTimeout(() => saveDraft(textarea, textarea.value), 300);
      }
    }),
  ];
  if (textarea && textarea.maxLength > 0) {
    // The textarea's maxlength, kept by the editor: a change that would pass it is refused
    // and the note under the editor says why.
    const limit = textarea.maxLength;
    extensions.push(EditorState.changeFilter.of((tr) => {
      if (!tr.docChanged) return true;
      const length = proofText(tr.state).length;
      const note = document.getElementById(`${textarea.id}-limit-note`);
      if (note) note.hidden = length < limit && !(length > limit);
      return length <= limit || length <= proofText(tr.startState).length;
    }));
  }
  if (readOnly) {
    extensions.push(EditorState.readOnly.of(true), keymap.of(lintKeymap));
  } else {
    extensions.push(
      history(),
      readOnlyPrefix(proofStart),
      unicode.extension,
      keymap.of([
        { key: 'Mod-Enter', run: () => { textarea.form?.requestSubmit(); return true; } },
        { key: 'Tab', run: unicode.tab },
        ...lintKeymap,
        ...historyKeymap,
        ...defaultKeymap,
      ]),
    );
  }
  view = new EditorView({
    state: EditorState.create({ doc: `${statement}\n${proof}`, extensions }),
    parent: host,
  });
  if (!readOnly) rememberPageAttempt();
  applyResult();
  if (!lastResultKey) refreshGoals(cursorLine(view.state));
  // A new result arrives by the websocket or htmx: #attempt-feedback is swapped.
  // Goals while typing arrive the same way: #live-goals is swapped.
  new MutationObserver(() => { applyResult(); live?.arrived(); }).observe(document.body, {
    childList: true, subtree: true, attributes: true, attributeFilter: ['data-lean-result', 'data-live-goals'],
  });
  return view;
}

function attach(textarea) {
  const statement = textarea.dataset.statement ?? '';
  let proof = textarea.value;
  const draft = loadDraft(textarea);
  if (draft !== null && draft.trim() && draft !== proof) {
    proof = draft;
    textarea.value = draft;
    const note = document.getElementById(`${textarea.id}-draft-note`);
    if (note) note.hidden = false;
  }
  const host = document.createElement('div');
  host.className = 'lean-cm';
  textarea.after(host);
  textarea.hidden = true;
  const hideOnEnhance = document.querySelectorAll('[data-hide-with-editor]');
  hideOnEnhance.forEach((node) => { node.hidden = true; });
  const goalPanel = document.getElementById('goal-view');
  if (goalPanel) goalPanel.hidden = false;
  const label = document.querySelector(`label[for="${textarea.id}"]`);
  const view = createEditor({
    host, statement, proof, readOnly: false, textarea,
    labelId: label?.id, describedBy: textarea.getAttribute('aria-describedby'),
  });
  if (label) label.addEventListener('click', (event) => { event.preventDefault(); view.focus(); });
  // Put the cursor at the end of the proof, ready to type.
  view.dispatch({ selection: { anchor: view.state.doc.length } });
  textarea.leanView = view;
}

function attachView(node) {
  const host = document.createElement('div');
  host.className = 'lean-cm readonly';
  node.after(host);
  node.hidden = true;
  const goalPanel = document.getElementById('goal-view');
  if (goalPanel) goalPanel.hidden = false;
  node.leanView = createEditor({
    host, statement: node.dataset.statement ?? '', proof: node.dataset.proof ?? '', readOnly: true,
    labelId: node.getAttribute('aria-labelledby'),
  });
}

// The browser stops at maxlength without a word (a long paste is cut): say so.
function showLimit(textarea) {
  const note = document.getElementById(`${textarea.id}-limit-note`);
  if (note && textarea.maxLength > 0) note.hidden = textarea.value.length < textarea.maxLength;
}

function attachAll(root) {
  root.querySelectorAll('textarea[data-lean-editor]:not([data-lean-attached])').forEach((textarea) => {
    textarea.dataset.leanAttached = '1';
    attach(textarea);
  });
  root.querySelectorAll('[data-lean-view]:not([data-lean-attached])').forEach((node) => {
    node.dataset.leanAttached = '1';
    attachView(node);
  });
}

document.addEventListener('DOMContentLoaded', () => attachAll(document));
document.addEventListener('htmx:load', (event) => attachAll(event.target));
// Exposed for tests and for pages that add editors by other means.
window.LeanEditor = { attachAll };
