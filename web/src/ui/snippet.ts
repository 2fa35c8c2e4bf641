/**
 * A search result's snippet: a window of the message's plain text around the
 * first word that matched, cut into pieces that say which are hits. The page
 * shows the pieces as text (a hit in a <mark>), so nothing in a message or a
 * query can become markup.
 *
 * Words are matched as the hub's index sees them: runs of letters and digits,
 * compared without case or diacritics; a query word ending in `*` matches
 * words that start with it.
 */
export interface SnippetPiece {
  text: string;
  hit: boolean;
}

const WORD = /[\p{L}\p{N}]+/gu;
/** How much of a long message the snippet shows, and how much of it before the first hit. */
const SNIPPET_CHARS = 200;
const LEAD_CHARS = 60;

const fold = (word: string): string => word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

interface Term {
  word: string;
  prefix: boolean;
}

function termsOf(query: string): Term[] {
  return (query.match(/[\p{L}\p{N}]+\*?/gu) ?? []).map((w) => (w.endsWith('*') ? { word: fold(w.slice(0, -1)), prefix: true } : { word: fold(w), prefix: false }));
}

function matches(word: string, terms: Term[]): boolean {
  const folded = fold(word);
  return terms.some((t) => (t.prefix ? folded.startsWith(t.word) : folded === t.word));
}

/** Where the snippet starts and ends: a little before the first hit, on word boundaries where it can. */
function windowAround(text: string, at: number): [number, number] {
  if (text.length <= SNIPPET_CHARS) return [0, text.length];
  let start = Math.min(Math.max(0, at - LEAD_CHARS), text.length - SNIPPET_CHARS);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < at) start = space + 1;
  }
  let end = Math.min(text.length, start + SNIPPET_CHARS);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > at) end = space;
  }
  return [start, end];
}

export function snippetOf(text: string, query: string): SnippetPiece[] {
  const terms = termsOf(query);
  const firstHit = [...text.matchAll(WORD)].find((m) => matches(m[0], terms))?.index ?? 0;
  const [start, end] = windowAround(text, firstHit);
  const pieces: SnippetPiece[] = [];
  const push = (piece: string, hit: boolean) => {
    const last = pieces[pieces.length - 1];
    if (last && last.hit === hit) last.text += piece;
    else if (piece) pieces.push({ text: piece, hit });
  };
  if (start > 0) push('… ', false);
  const shown = text.slice(start, end);
  let at = 0;
  for (const m of shown.matchAll(WORD)) {
    push(shown.slice(at, m.index), false);
    push(m[0], matches(m[0], terms));
    at = m.index + m[0].length;
  }
  push(shown.slice(at), false);
  if (end < text.length) push(' …', false);
  return pieces;
}
