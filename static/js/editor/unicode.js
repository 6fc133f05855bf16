// Lean's unicode input (\and → ∧, \N → ℕ) for CodeMirror, using @leanprover/unicode-input as
// VS Code's Lean extension does: an abbreviation is replaced as soon as it is complete and
// unambiguous, or when a character that cannot continue it is typed (space, `)`, ...), or on Tab.
import { AbbreviationProvider, AbbreviationRewriter, Range } from '@leanprover/unicode-input';
import { Annotation } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

const config = { abbreviationCharacter: '\\', customTranslations: {}, eagerReplacementEnabled: true };
const ours = Annotation.define();

export function unicodeInput(getView) {
  let rewriter = null;
  let replacedAt = -1; // where the cursor stood right after our last replacement
  const source = {
    async replaceAbbreviations(changes) {
      const view = getView();
      view.dispatch({
        changes: changes.map((c) => ({ from: c.range.offset, to: c.range.offset + c.range.length, insert: c.newText })),
        annotations: ours.of(true),
      });
      return true;
    },
    selectionMoveMode: () => ({ kind: 'MoveAllSelections' }),
    collectSelections: () => getView().state.selection.ranges.map((r) => new Range(r.from, r.to - r.from)),
    setSelections(selections) {
      const s = selections[0];
      if (s) getView().dispatch({ selection: { anchor: s.offset, head: s.offset + s.length }, annotations: ours.of(true) });
    },
  };
  const provider = new AbbreviationProvider(config);
  const get = () => (rewriter ??= new AbbreviationRewriter(config, provider, source));

  const listener = EditorView.updateListener.of((update) => {
    if (update.transactions.some((tr) => tr.annotation(ours))) {
      if (update.docChanged) {
        // Our own replacement: tell the tracker, which moves its ranges accordingly.
        feed(update);
      }
      replacedAt = update.state.selection.main.head;
      return;
    }
    if (update.docChanged || update.selectionSet) replacedAt = -1;
    if (update.docChanged) {
      feed(update);
      // Dispatching inside an update is not allowed: replace right after it.
      queueMicrotask(() => get().triggerAbbreviationReplacement());
    } else if (update.selectionSet) {
      get().changeSelections(source.collectSelections());
    }
  });

  function feed(update) {
    const changes = [];
    update.changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
      changes.push({ range: new Range(fromA, toA - fromA), newText: inserted.toString() });
    });
    // Later changes first, so each one's offsets are still those of the text it applies to.
    get().changeInput(changes.reverse());
  }

  // Tab: complete pending abbreviations, as a space does, leaving one space after the symbol;
  // right after a symbol that was already replaced (\forall is complete as typed), only
  // that space. Elsewhere it indents by two spaces (Lean style).
  function tab(view) {
    if (get().getTrackedAbbreviations().size > 0) {
      // Resolves once the symbol is in and the cursor after it.
      get().replaceAllTrackedAbbreviations().then(() => view.dispatch(view.state.replaceSelection(' ')));
    } else if (view.state.selection.main.empty && view.state.selection.main.head === replacedAt) {
      view.dispatch(view.state.replaceSelection(' '));
    } else {
      view.dispatch(view.state.replaceSelection('  '));
    }
    replacedAt = -1;
    return true;
  }
  return { extension: listener, tab };
}
