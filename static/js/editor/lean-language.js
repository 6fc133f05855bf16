// Lean 4 syntax highlighting as a CodeMirror StreamLanguage: comments, strings, numbers,
// commands and tactics as keywords, `⊢`/`→`-style symbols as operators.
import { HighlightStyle, StreamLanguage } from '@codemirror/language';
import { tags } from '@lezer/highlight';

// Colours chosen for WCAG AA contrast (4.5:1 or more) on the editor's white and on the
// statement's light grey background.
export const leanHighlight = HighlightStyle.define([
  { tag: tags.keyword, color: '#6d28d9', fontWeight: '600' },
  { tag: tags.comment, color: '#4b5563', fontStyle: 'italic' },
  { tag: tags.string, color: '#166534' },
  { tag: tags.number, color: '#9a3412' },
  { tag: tags.typeName, color: '#0f766e' },
  { tag: tags.operator, color: '#1e3a8a' },
]);

const KEYWORDS = new Set(('theorem lemma def example abbrev instance structure inductive where ' +
  'fun by have show from at with match do let in if then else calc suffices obtain ' +
  'namespace section end open variable import universe').split(' '));
const TACTICS = new Set(('intro intros exact apply refine rfl rw rewrite simp simp_all omega ' +
  'decide constructor cases rcases induction assumption contradiction trivial exfalso left right ' +
  'use exists unfold specialize generalize revert clear subst calc linarith norm_num ring ' +
  'sorry skip done repeat first try all_goals any_goals focus case next by_cases by_contra ' +
  'funext ext congr symm exact? apply? split injection nofun nomatch').split(' '));
const SYMBOLS = /^[→←↔∧∨¬∀∃λ⊢≤≥≠∘×⟨⟩▸↑∣∈∉∩∪⊆ℕℤℚℝ:=<>+\-*/^|&.,;·]/u;

export const lean = StreamLanguage.define({
  name: 'lean4',
  startState: () => ({ commentDepth: 0 }),
  token(stream, state) {
    if (state.commentDepth > 0) {
      while (!stream.eol()) {
        if (stream.match('/-')) state.commentDepth++;
        else if (stream.match('-/')) { state.commentDepth--; if (state.commentDepth === 0) break; }
        else stream.next();
      }
      return 'comment';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('--')) { stream.skipToEnd(); return 'comment'; }
    if (stream.match('/-')) { state.commentDepth = 1; return this.token(stream, state); }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
    if (stream.match(/^\d+(\.\d+)?/)) return 'number';
    const word = stream.match(/^[\p{L}_][\p{L}\p{N}_'!?₀-₉.]*/u);
    if (word) {
      const text = word[0];
      if (KEYWORDS.has(text)) return 'keyword';
      if (TACTICS.has(text)) return 'keyword';
      if (text === 'Prop' || text === 'Type' || text === 'Nat' || text === 'List') return 'typeName';
      return 'variableName';
    }
    if (stream.match(SYMBOLS)) return 'operator';
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '--', block: { open: '/-', close: '-/' } } },
});
