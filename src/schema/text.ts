import { z } from 'zod';

/**
 * Text that authors supply — messages, titles, nicknames, request params —
 * must be well-formed Unicode without control characters, or it is refused
 * naming the field (never stored, never silently rewritten):
 *
 * - C0 controls, DEL and C1 controls are refused: a NUL truncates the text for
 *   C programs, an ESC sequence recolours or rewrites a reader's terminal.
 *   Tab and line feed are ordinary text. A carriage return is allowed only
 *   right before a line feed: CRLF is what Windows clients paste, and shows as
 *   a plain line break everywhere, while a lone CR makes a terminal overwrite
 *   the line it is on. The text is kept as sent.
 * - Unpaired surrogates (JSON escapes such as "\ud800") are not text: they
 *   cannot be encoded in UTF-8 and would be turned into U+FFFD on the way.
 *
 * Format characters such as the bidi overrides are text and are not refused;
 * the page isolates each piece of text so they cannot reach outside it.
 */
export type TextLines = 'one line' | 'lines';

/**
 * What no clean text holds: a character that may be a fault (controls, CR,
 * surrogates), and for one-line text also LF. Most text has none of them and
 * is passed by this one scan; the rest is walked character by character.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const SUSPECT_IN_LINES = /[\0-\x08\x0B-\x1F\x7F-\x9F\uD800-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const SUSPECT_IN_ONE_LINE = /[\0-\x08\x0A-\x1F\x7F-\x9F\uD800-\uDFFF]/;

/** What is wrong with `text` as author text, or undefined when nothing is. */
export function textFault(text: string, lines: TextLines): string | undefined {
  if (!(lines === 'lines' ? SUSPECT_IN_LINES : SUSPECT_IN_ONE_LINE).test(text)) return undefined;
  const allowed = lines === 'lines' ? 'tab and line breaks are' : 'tab is';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return `contains an unpaired surrogate ${codePoint(code)} ${at(i)}, which is not Unicode text; send well-formed UTF-8`;
    }
    if (code >= 0xdc00 && code <= 0xdfff) {
      return `contains an unpaired surrogate ${codePoint(code)} ${at(i)}, which is not Unicode text; send well-formed UTF-8`;
    }
    if (code === 0x0a || code === 0x0d) {
      if (lines === 'one line') return `must be one line: it has a line break ${at(i)}`;
      if (code === 0x0d && text.charCodeAt(i + 1) !== 0x0a) return `contains a carriage return not followed by a line feed ${at(i)}; end lines with \\n (or \\r\\n)`;
      continue;
    }
    if (isControl(code) && code !== 0x09) {
      return `contains the control character ${codePoint(code)} ${at(i)}; remove it (only ${allowed} allowed)`;
    }
  }
  return undefined;
}

function at(index: number): string {
  return `at character ${index + 1}`;
}

/** C0 controls, DEL and the C1 controls (Unicode category Cc). */
function isControl(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
}

function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

const refuseFaults = (lines: TextLines) =>
  z.superRefine<string>((value, ctx) => {
    const fault = textFault(value, lines);
    if (fault !== undefined) ctx.addIssue({ code: 'custom', message: fault, input: value });
  });

/** A check for text of any number of lines: `z.string().check(multiLineText)`. */
export const multiLineText = refuseFaults('lines');
/** A check for one-line text (names, titles, labels): `z.string().check(oneLineText)`. */
export const oneLineText = refuseFaults('one line');

/** Free text as authors write it: messages, summaries, request notes. */
export const TextSchema = z.string().check(multiLineText);

/**
 * Any JSON value an author supplies (request params, response results): every
 * string in it, and every key, is author text of any number of lines. Walked
 * without recursion, so a deeply nested value cannot exhaust the stack.
 */
export const JsonTextValueSchema = z.unknown().check(
  z.superRefine<unknown>((value, ctx) => {
    const seen = new Set<object>();
    // Each node keeps its parent and key, not its whole path: a deep value costs linear time.
    const nodes: Array<{ value: unknown; parent: number; key: string | number }> = [{ value, parent: -1, key: '' }];
    const pathOf = (index: number): Array<string | number> => {
      const path: Array<string | number> = [];
      for (let at = index; at > 0; at = nodes[at]!.parent) path.push(nodes[at]!.key);
      return path.reverse();
    };
    // Breadth first, so the fault reported is the shallowest one.
    for (let next = 0; next < nodes.length; next++) {
      const item = nodes[next]!.value;
      if (typeof item === 'string') {
        const fault = textFault(item, 'lines');
        if (fault !== undefined) return ctx.addIssue({ code: 'custom', message: fault, input: item, path: pathOf(next) });
        continue;
      }
      if (item === null || typeof item !== 'object' || seen.has(item)) continue;
      // A cycle is not JSON; serialising the value refuses it later.
      seen.add(item);
      const entries: Array<[string | number, unknown]> = Array.isArray(item) ? item.map((element, index) => [index, element]) : Object.entries(item);
      for (const [key, element] of entries) {
        // Signed data refuses this key (a copy of the value would take it as its prototype), so nothing stores it.
        const fault = key === '__proto__' ? 'is "__proto__", which cannot be kept as data; rename it' : typeof key === 'string' ? textFault(key, 'lines') : undefined;
        if (fault !== undefined) return ctx.addIssue({ code: 'custom', message: `has a key that ${fault}`, input: key, path: pathOf(next) });
        nodes.push({ value: element, parent: next, key });
      }
    }
  }),
);
