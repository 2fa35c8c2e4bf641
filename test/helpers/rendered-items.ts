/**
 * Parsers of the texts Parley renders for a model (hook context, the chat
 * block, the agent loop's inbox text, the relevance question, a coordinator
 * adapter's stdin), written from each text's structure, as a reader would:
 * lines at the margin are Parley's structure and must be one of the lines
 * that text is made of; lines starting with "> " are the quoted words of the
 * item above them. A margin line that fits nothing fails the parse — which is
 * what a forged item would be.
 */
import { PEER_TEXT_NOTE } from '../../src/util/peer-text.js';

export interface ParsedItem {
  /** Its kind as the header says it: "Direct message", "Request", "wrote", "asks", … */
  kind: string;
  author: string;
  /** Where, when the header names a thread. */
  where?: string;
  /** The quoted lines, the quote mark taken off. */
  body: string[];
  /** intent, params, result: the JSON values. */
  fields: Record<string, unknown>;
  /** The coordinator's "*": this event asks for the answer. */
  trigger?: boolean;
  cut?: boolean;
}

/** A Parley name shown bare, or a JSON string. */
const NAME = String.raw`(?:[A-Za-z0-9][A-Za-z0-9_.:+-]*|"(?:[^"\\]|\\.)*")`;
const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

/** The name a NAME token stands for. */
function nameOf(token: string): string {
  return token.startsWith('"') ? (JSON.parse(token) as string) : token;
}

function escaped(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

class Lines {
  readonly items: ParsedItem[] = [];
  #fields: Array<[ParsedItem, string, string]> = [];

  constructor(readonly text: string) {}

  fail(line: string, why: string): never {
    throw new Error(`${why}: ${JSON.stringify(line)}\n--- in ---\n${this.text}`);
  }

  start(item: Omit<ParsedItem, 'body' | 'fields'>): ParsedItem {
    const full: ParsedItem = { ...item, body: [], fields: {} };
    this.items.push(full);
    return full;
  }

  /** A line inside the current item: quoted words, a field, or the cut note; false when it is none of them. */
  within(line: string): boolean {
    const current = this.items.at(-1);
    const quotedLine = /^> (.*)$|^>$/.exec(line);
    const field = /^(intent|params|result): (.*)$/.exec(line);
    const cut = new RegExp(`^\\[cut; the whole item is seq \\d+ in (?:your DM with @)?${NAME} \\(chat_history\\)\\]$`).test(line);
    if (!quotedLine && !field && !cut) return false;
    if (!current) this.fail(line, 'a line of an item before any item');
    if (quotedLine) current.body.push(quotedLine[1] ?? '');
    else if (field) this.#fields.push([current, field[1]!, field[2]!]);
    else current.cut = true;
    return true;
  }

  done(): ParsedItem[] {
    // A field cut short is the cut item's; any other must be whole JSON.
    for (const [item, key, raw] of this.#fields) {
      try {
        item.fields[key] = JSON.parse(raw);
      } catch {
        if (!item.cut) this.fail(raw, `field ${key} is not JSON`);
      }
    }
    return this.items;
  }
}

const ITEM_HEAD = new RegExp(`^(?<kind>[A-Z][a-z]+(?: [a-z]+)*|[a-z]+) from @(?<author>${NAME})(?: in (?:your DM with @)?(?<where>${NAME}))?(?<rest>.*)$`);
const ITEM_REST = [
  new RegExp(`^ \\(id ${ULID}\\)\\.(?: Reply with chat_dm to @${NAME}\\.| Reply with chat_post in ${NAME} \\(reply_to ${ULID}\\)\\.)?$`),
  new RegExp(`^ \\(request_id ${NAME}\\); answer with request_respond\\.$`),
  new RegExp(`^ to your request ${NAME}: ${NAME}\\.$`),
  new RegExp(`^ \\(id ${ULID}; ${NAME}\\)\\.$`),
];

/** An item's first line as describeItem writes it. */
function itemHead(lines: Lines, line: string, head: string, extra: Partial<ParsedItem> = {}): void {
  const match = ITEM_HEAD.exec(head);
  if (!match || !ITEM_REST.some((rest) => rest.test(match.groups!.rest!))) lines.fail(line, 'not an item header');
  const { kind, author, where } = match.groups!;
  lines.start({ kind: kind!, author: nameOf(author!), ...(where === undefined ? {} : { where: nameOf(where) }), ...extra });
}

const NOTE = escaped(PEER_TEXT_NOTE);

/** The hook's context text (additionalContext, a stop's reason, Cursor's followup_message). */
export function parseHookText(text: string): ParsedItem[] {
  const lines: Lines = new Lines(text);
  const [first, ...rest] = text.split('\n');
  const header = new RegExp(`^Parley, the hub where you talk with other agents and people \\(this note comes from Parley, not from your user\\): (\\d+) new for @${NAME}\\. ${NOTE}$`).exec(first!);
  if (!header) lines.fail(first!, 'not the header');
  let footer = false;
  for (const line of rest) {
    if (footer) lines.fail(line, 'a line after the footer');
    if (lines.within(line)) continue;
    const numbered = /^(\d+)\. (.*)$/.exec(line);
    if (numbered) {
      if (Number(numbered[1]) !== lines.items.length + 1) lines.fail(line, 'an item out of its number');
      itemHead(lines, line, numbered[2]!);
    } else if (/^(?:At least )?\d+ more (?:item waits|items wait): read them with the inbox tool\.$/.test(line)) footer = true;
    else lines.fail(line, 'a margin line that is no part of the hook text');
  }
  const items = lines.done();
  if (Number(header[1]) !== items.length) lines.fail(first!, `the header counts ${header[1]} items, the text has ${items.length}`);
  return items;
}

export const CHAT_BLOCK_HEADER = `Recent chat messages (from Parley, new since your last model call). ${PEER_TEXT_NOTE}`;

/** The middleware's chat block, from its header on. */
function parseChatLines(lines: Lines, all: string[]): void {
  if (all[0] !== CHAT_BLOCK_HEADER) lines.fail(all[0] ?? '', 'not the chat block header');
  let footer = false;
  for (const line of all.slice(1)) {
    if (footer) lines.fail(line, 'a line after the footer');
    if (lines.within(line)) continue;
    const timed = new RegExp(`^\\[(?:\\d\\d:\\d\\d:\\d\\d UTC|${NAME})\\] (.*)$`).exec(line);
    if (timed) itemHead(lines, line, timed[1]!);
    else if (/^(?:At least )?\d+ more (?:message waits|messages wait); (?:it comes|they come) with your next model call\.$/.test(line)) footer = true;
    else lines.fail(line, 'a margin line that is no part of the chat block');
  }
}

export function parseChatBlock(text: string): ParsedItem[] {
  const lines: Lines = new Lines(text);
  parseChatLines(lines, text.split('\n'));
  return lines.done();
}

export const SUBAGENT_HEADER = 'Subagent results (your own workers, finished; each answer quoted with ">"):';

/** The agent loop's inbox text: subagent results (kind "subagent", author its id), a blank line, the chat block. */
export function parseInboxText(text: string): ParsedItem[] {
  const lines: Lines = new Lines(text);
  const all = text.split('\n');
  let at = 0;
  if (all[0] === SUBAGENT_HEADER) {
    for (at = 1; at < all.length && all[at] !== ''; at++) {
      const line = all[at]!;
      if (lines.within(line)) continue;
      const result = new RegExp(`^\\[subagent (${NAME})\\] (completed|failed|stopped): task ("(?:[^"\\\\]|\\\\.)*")$`).exec(line);
      if (!result) lines.fail(line, 'a margin line that is no part of the subagent results');
      lines.start({ kind: 'subagent', author: nameOf(result[1]!) });
    }
    at++;
  }
  if (at < all.length) parseChatLines(lines, all.slice(at));
  return lines.done();
}

/** The agent loop's relevance question: numbered items, then numbered subagent results (kind "subagent"). */
export function parseRelevanceQuestion(text: string): ParsedItem[] {
  const lines: Lines = new Lines(text);
  const all = text.split('\n');
  if (all[0] !== `Relevance check (do not act on these now, and call no tool): which of these new inbox items are relevant to your current work? ${PEER_TEXT_NOTE}`) {
    lines.fail(all[0]!, 'not the question');
  }
  if (all.at(-1) !== 'Answer with only JSON, e.g. {"relevant": [1, 3]}; {"relevant": []} when none is.') lines.fail(all.at(-1)!, 'not the closing line');
  for (const line of all.slice(1, -1)) {
    if (lines.within(line)) continue;
    const numbered = /^(\d+)\. (.*)$/.exec(line);
    if (!numbered || Number(numbered[1]) !== lines.items.length + 1) lines.fail(line, 'a margin line that is no numbered item');
    const result = new RegExp(`^Result of your subagent (${NAME}) \\((completed|failed|stopped)\\) for "(?:[^"\\\\]|\\\\.)*": [^\\n]*$`).exec(numbered[2]!);
    if (result) lines.start({ kind: 'subagent', author: nameOf(result[1]!) });
    else itemHead(lines, line, numbered[2]!);
  }
  return lines.done();
}

/** A coordinator adapter's stdin: kind "wrote", "asks", "answered" or the control's verb; `trigger` for "*". */
export function parseAdapterInput(text: string): ParsedItem[] {
  const lines: Lines = new Lines(text);
  const all = text.split('\n');
  if (!/^You are @\S+ in session "[^"]*" of a Parley hub\. Parley's coordinator runs you because something in .* asks for your answer while no session of yours is open\.$/.test(all[0]!)) {
    lines.fail(all[0]!, 'not the opening line');
  }
  if (all[1] !== '' || !new RegExp(`^New in .* \\(oldest first; lines starting with "\\*" ask for your answer\\)\\. ${NOTE}$`).test(all[2]!)) lines.fail(all[2]!, 'not the list header');
  // The end: a blank line, where the answer goes, and the final newline.
  const [blank, answer, end] = all.slice(-3);
  if (blank !== '' || end !== '' || !/^What you print on stdout is posted as .* Print nothing to (?:post|send) nothing\.$/.test(answer!)) lines.fail(answer!, 'not the closing lines');
  const event = new RegExp(`^([* ]) \\[${NAME}\\] @(${NAME}) (wrote|asks|answered|[a-z]+)(.*)   \\((?:message ${ULID}|request ${NAME}, event ${ULID}|[a-z]+ event ${ULID})\\)$`);
  for (const line of all.slice(3, -3)) {
    if (lines.within(line)) continue;
    const match = event.exec(line);
    if (!match) lines.fail(line, 'a margin line that is no event');
    const [, mark, author, kind, rest] = match;
    if (kind === 'wrote' && rest !== '') lines.fail(line, 'a message line with more than its author');
    lines.start({ kind: kind!, author: nameOf(author!), trigger: mark === '*' });
  }
  return lines.done();
}
