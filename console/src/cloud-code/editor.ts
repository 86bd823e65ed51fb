// The Cloud Code editor: CodeMirror 6 with JavaScript highlighting, the Spark API's completion and the server's
// syntax error marked at its line. Part of the Cloud Code page's chunk, loaded only when that page opens.
import { autocompletion } from '@codemirror/autocomplete';
import { javascript, javascriptLanguage } from '@codemirror/lang-javascript';
import { type Diagnostic, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { sparkCompletions } from './completion.js';

export interface ScriptEditor {
  text(): string;
  /** Marks the server's syntax error (1-based line and column) and puts the cursor there. */
  markError(line: number, column: number, message: string): void;
  clearError(): void;
  destroy(): void;
}

export function mountEditor(
  parent: HTMLElement,
  doc: string,
  label: string,
  onChange: (text: string) => void,
  readOnly = false,
): ScriptEditor {
  const view = new EditorView({
    parent,
    doc,
    extensions: [
      basicSetup,
      javascript(),
      javascriptLanguage.data.of({ autocomplete: sparkCompletions }),
      autocompletion({ activateOnTyping: true }),
      EditorView.contentAttributes.of({ 'aria-label': label }),
      EditorState.readOnly.of(readOnly),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) onChange(u.state.doc.toString());
      }),
    ],
  });
  return {
    text: () => view.state.doc.toString(),
    markError(line, column, message) {
      const l = view.state.doc.line(Math.min(Math.max(line, 1), view.state.doc.lines));
      const from = Math.min(l.from + Math.max(column - 1, 0), l.to);
      const diagnostic: Diagnostic = {
        from,
        to: Math.max(from, Math.min(from + 1, l.to)),
        severity: 'error',
        message,
      };
      view.dispatch(setDiagnostics(view.state, [diagnostic]));
      view.dispatch({ selection: { anchor: from }, scrollIntoView: true });
    },
    clearError() {
      view.dispatch(setDiagnostics(view.state, []));
    },
    destroy: () => view.destroy(),
  };
}
