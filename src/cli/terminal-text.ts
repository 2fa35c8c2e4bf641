/**
 * Text that others wrote (messages, handles, thread names, presence notes, a
 * hub's error messages) made safe to print on a terminal. A terminal acts on
 * some characters instead of showing them: an ESC sequence clears the screen,
 * recolours or retitles it, a NUL or BEL reaches it raw, a C1 control (CSI
 * U+009B, NEL U+0085) works like ESC on some terminals, U+2028/U+2029 break
 * lines, and bidi embeddings, overrides and isolates reorder what follows.
 * Each of these is printed as a visible escape (`\x1b`, `\u202e`) instead.
 * Line feeds and tabs stay where the output has lines (a message body, a
 * list), and so does a carriage return right before a line feed (CRLF text is
 * text); in one line (an error) they are escaped too.
 */
export type TerminalLines = 'one line' | 'lines';

/** C0 controls, DEL, C1 controls, the line and paragraph separators, bidi embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTED_ON = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, less the C0 controls: JSON.stringify escapes those itself. */
const ACTED_ON_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (char: string, digits: number): string => char.charCodeAt(0).toString(16).padStart(digits, '0');

/** `text` with every character a terminal would act on written as an escape. */
export function terminalText(text: string, lines: TerminalLines): string {
  return text.replace(ACTED_ON, (char, offset: number) => {
    if (lines === 'lines' && (char === '\n' || char === '\t' || (char === '\r' && text[offset + 1] === '\n'))) return char;
    return char <= '\u00ff' ? `\\x${hex(char, 2)}` : `\\u${hex(char, 4)}`;
  });
}

/**
 * A value as JSON for a terminal: the same JSON to a program reading it (the
 * characters above are written as `\u` escapes, which JSON.stringify leaves
 * raw beyond the C0 controls), and nothing a terminal acts on.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(ACTED_ON_IN_JSON, (char) => `\\u${hex(char, 4)}`);
}
