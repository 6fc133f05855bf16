// Editor glue: Lean's unicode input (\to → →, \N → ℕ, Tab completes) on a plain <textarea>,
// plus a draft kept in localStorage so an expired session or a lost request loses no text.
// Bundled by esbuild into static/js/editor.bundle.js (see docs/WEBAPP.md).
import { AbbreviationProvider, AbbreviationRewriter, Range } from '@leanprover/unicode-input';

const config = { abbreviationCharacter: '\\', customTranslations: {}, eagerReplacementEnabled: true };

// The edit between two texts as one change: common prefix and suffix are kept.
function diff(before, after) {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  return { range: new Range(start, endBefore - start), newText: after.slice(start, endAfter) };
}

function attach(textarea) {
  let known = textarea.value;
  const source = {
    async replaceAbbreviations(changes) {
      let text = textarea.value;
      // Range.offsetEnd is inclusive in this package: use offset + length for slicing.
      for (const change of [...changes].sort((a, b) => b.range.offset - a.range.offset)) {
        const { offset, length } = change.range;
        text = text.slice(0, offset) + change.newText + text.slice(offset + length);
      }
      textarea.value = text;
      known = text;
      return true;
    },
    // The rewriter moves the cursor itself (setting .value resets it to the end).
    selectionMoveMode: () => ({ kind: 'MoveAllSelections' }),
    collectSelections: () => [new Range(textarea.selectionStart, textarea.selectionEnd - textarea.selectionStart)],
    setSelections(selections) {
      const s = selections[0];
      if (s) textarea.setSelectionRange(s.offset, s.offset + s.length);
    },
  };
  const rewriter = new AbbreviationRewriter(config, new AbbreviationProvider(config), source);

  textarea.addEventListener('input', async () => {
    const change = diff(known, textarea.value);
    known = textarea.value;
    rewriter.changeInput([change]);
    await rewriter.triggerAbbreviationReplacement();
    saveDraft(textarea);
  });
  const selectionMoved = () => rewriter.changeSelections(source.collectSelections());
  textarea.addEventListener('click', selectionMoved);
  textarea.addEventListener('keyup', (event) => {
    if (event.key.startsWith('Arrow') || event.key === 'Home' || event.key === 'End') selectionMoved();
  });
  textarea.addEventListener('keydown', (event) => {
    // Tab completes a pending abbreviation; otherwise it indents by two spaces (Lean style).
    if (event.key !== 'Tab' || event.shiftKey) return;
    event.preventDefault();
    if (rewriter.getTrackedAbbreviations().size > 0) {
      rewriter.replaceAllTrackedAbbreviations();
    } else {
      textarea.setRangeText('  ', textarea.selectionStart, textarea.selectionEnd, 'end');
      textarea.dispatchEvent(new Event('input'));
    }
  });
  restoreDraft(textarea);
  known = textarea.value;
}

function draftKey(textarea) {
  return textarea.dataset.draftKey ? `leancoach:draft:${textarea.dataset.draftKey}` : null;
}

function saveDraft(textarea) {
  const key = draftKey(textarea);
  if (key) {
    try { localStorage.setItem(key, textarea.value); } catch (e) { /* storage full or off */ }
  }
}

function restoreDraft(textarea) {
  const key = draftKey(textarea);
  if (!key) return;
  let draft = null;
  try { draft = localStorage.getItem(key); } catch (e) { return; }
  if (draft !== null && draft.trim() && draft !== textarea.value) {
    textarea.value = draft;
    const note = document.getElementById(`${textarea.id}-draft-note`);
    if (note) note.hidden = false;
  }
}

function attachAll(root) {
  root.querySelectorAll('textarea[data-lean-editor]:not([data-lean-attached])').forEach((textarea) => {
    textarea.dataset.leanAttached = '1';
    attach(textarea);
  });
}

document.addEventListener('DOMContentLoaded', () => attachAll(document));
document.addEventListener('htmx:load', (event) => attachAll(event.target));
// Exposed for tests and for pages that add editors by other means.
window.LeanEditor = { attachAll };
