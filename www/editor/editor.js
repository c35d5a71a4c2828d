// The script editor: CodeMirror 6 with JavaScript highlighting, line numbers and bracket
// matching, bundled by esbuild into one file that sets `globalThis.ppEditor`. The Rust side
// (src/app/editor.rs) calls create/get/set/focus/destroy through wasm-bindgen.
import { EditorView, Decoration, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection } from "@codemirror/view";
import { EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, indentOnInput, syntaxHighlighting, HighlightStyle } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { javascriptLanguage } from "@codemirror/lang-javascript";

// Colours come from CSS variables (www/style.css), so the light and dark themes both read well.
const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword], color: "var(--cm-keyword)" },
  { tag: [t.string, t.special(t.string), t.regexp], color: "var(--cm-string)" },
  { tag: [t.number, t.bool, t.null, t.atom], color: "var(--cm-number)" },
  { tag: [t.propertyName, t.definition(t.propertyName)], color: "var(--cm-property)" },
  { tag: [t.definition(t.variableName), t.function(t.variableName), t.function(t.propertyName)], color: "var(--cm-def)" },
  { tag: [t.lineComment, t.blockComment], color: "var(--cm-comment)", fontStyle: "italic" },
  { tag: t.invalid, color: "var(--cm-invalid)" },
]);

// A small setup (codemirror's basicSetup adds search, autocompletion, folding and lint: ~3x the size).
const setup = [
  lineNumbers(),
  highlightActiveLineGutter(),
  highlightActiveLine(),
  drawSelection(),
  history(),
  indentOnInput(),
  bracketMatching(),
  closeBrackets(),
  syntaxHighlighting(highlight),
  keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
];

// The line of the error that stopped the last run: marked until the script is edited or run again.
const setErrorLine = StateEffect.define();
const errorLine = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    for (const e of tr.effects) {
      if (e.is(setErrorLine)) {
        if (e.value === null || e.value < 1 || e.value > tr.state.doc.lines) return Decoration.none;
        const line = tr.state.doc.line(e.value);
        return Decoration.set([Decoration.line({ class: "cm-error-line", attributes: { title: "The error that stopped the run is on this line" } }).range(line.from)]);
      }
    }
    return tr.docChanged ? Decoration.none : marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

const views = new Map();
let next = 1;

/** Mounts an editor in `parent`; returns its handle. `onChange(text)` fires on every edit,
 * `onRun()` on Ctrl/Cmd+Enter. `label` names the editor for assistive technology. */
function create(parent, text, label, onChange, onRun) {
  const run = () => {
    onRun();
    return true;
  };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        Prec.highest(keymap.of([{ key: "Mod-Enter", run }])),
        setup,
        errorLine,
        javascriptLanguage,
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  const handle = next++;
  views.set(handle, view);
  return handle;
}

function get(handle) {
  const v = views.get(handle);
  return v ? v.state.doc.toString() : "";
}

function set(handle, text) {
  const v = views.get(handle);
  if (v && v.state.doc.toString() !== text) {
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
  }
}

/** Marks line `line` (1-based) as the one where the last run stopped; 0 clears the mark. */
function markError(handle, line) {
  views.get(handle)?.dispatch({ effects: setErrorLine.of(line > 0 ? line : null) });
}

function focus(handle) {
  views.get(handle)?.focus();
}

function destroy(handle) {
  views.get(handle)?.destroy();
  views.delete(handle);
}

globalThis.ppEditor = { create, get, set, markError, focus, destroy };
