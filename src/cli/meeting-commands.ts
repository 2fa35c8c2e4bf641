import { ParleyError } from '../errors/parley-error.js';
import type { HearView, MeetingStatusView, MeetingSummary, MeetingView } from '../schema/views.js';
import type { Command } from './command.js';
import { styleFor } from './style.js';
import { terminalText } from './terminal-text.js';

/**
 * The `parley meeting …` commands: one REST call each, printed as sentences
 * (JSON with --json). Where a participant stopped hearing is kept by the hub,
 * so `hear` twice gives only what is new, as MCP's meeting_hear does.
 */
const enc = encodeURIComponent;

type Said = { number: number; truncated: boolean; redacted: boolean };

/** A whole-number flag as the hub expects it; anything else is INVALID_INPUT naming the flag. */
function countFlag(value: unknown, flag: string, min: number, example: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && /^\d+$/.test(value) && Number(value) >= min) return value;
  throw new ParleyError('INVALID_INPUT', `Invalid --${flag}: "${String(value)}" is not a whole number of at least ${min}; give one, e.g. --${flag} ${example}.`, {
    field: flag,
  });
}

const handles = (view: MeetingView): string => view.who.map((w) => `@${w.handle}`).join(', ');
const here = (n: number): string => `${n} here`;

/** A meeting's line as `hear` prints it: time, number, speaker, then what they said (escaped before colouring). */
function heardLine(message: HearView['messages'][number], style = styleFor(process.stdout)): string {
  const time = terminalText(message.ts.slice(11, 19), 'one line');
  const speaker = terminalText(`#${message.number} @${message.speaker}`, 'one line');
  return `${style.time(time)} ${style.author(speaker)}: ${terminalText(message.content, 'lines')}`;
}

function statusText(name: string, status: MeetingStatusView): string {
  if (status.latest === 0) return `${name}: ${here(status.active)}, nothing said yet`;
  const since = status.last_heard === 0 ? '' : ` after #${status.last_heard}`;
  const kept = status.oldest === status.latest ? `line #${status.latest}` : `lines #${status.oldest} to #${status.latest}`;
  return `${name}: ${here(status.active)}, ${kept} kept, ${status.unread} unread${since}`;
}

export const MEETING_COMMANDS: Record<string, Command> = {
  'meeting-list': {
    usage: 'parley meeting list',
    summary: 'The meetings of the session: how many are in each, and its latest line',
    positionals: 0,
    async run(call) {
      const result = await call<{ meetings: MeetingSummary[] }>('GET', '/meetings');
      if (result.meetings.length === 0) return { json: result, text: '(no meetings in this session; "parley meeting join NAME" starts one)' };
      const width = Math.max(...result.meetings.map((m) => m.name.length));
      const lines = result.meetings.map((m) => `${m.name.padEnd(width)}  ${here(m.active)}, ${m.latest === 0 ? 'nothing said yet' : `latest line #${m.latest}`}`);
      return { json: result, text: lines.join('\n') };
    },
  },
  'meeting-join': {
    usage: 'parley meeting join NAME',
    summary: 'Join a meeting (the first join starts it)',
    positionals: 1,
    async run(call, [name]) {
      const view = await call<MeetingView>('POST', `/meetings/${enc(name!)}/join`);
      return { json: view, text: `joined ${view.name}; ${here(view.who.length)}: ${handles(view)}` };
    },
  },
  'meeting-leave': {
    usage: 'parley meeting leave NAME',
    summary: 'Leave a meeting',
    positionals: 1,
    async run(call, [name]) {
      const result = await call<{ left: boolean }>('POST', `/meetings/${enc(name!)}/leave`);
      return { json: result, text: result.left ? `left ${name!.toLowerCase()}` : `you were not in ${name!.toLowerCase()}; nothing to leave` };
    },
  },
  'meeting-who': {
    usage: 'parley meeting who NAME',
    summary: 'Who is in a meeting, with their role and when they joined',
    positionals: 1,
    async run(call, [name]) {
      const view = await call<MeetingView>('GET', `/meetings/${enc(name!)}/who`);
      if (view.who.length === 0) return { json: view, text: `nobody is in ${view.name}` };
      const width = Math.max(...view.who.map((w) => w.handle.length)) + 1;
      const lines = view.who.map((w) => `${`@${w.handle}`.padEnd(width)}  joined ${w.joinedAt.slice(11, 19)}${w.role ? `  (${w.role})` : ''}`);
      return { json: view, text: lines.join('\n') };
    },
  },
  'meeting-status': {
    usage: 'parley meeting status NAME [--last-heard N]',
    summary: 'A meeting at a glance: who is in, the lines it keeps, how many you have not heard',
    options: { 'last-heard': { type: 'string' } },
    positionals: 1,
    async run(call, [name], values) {
      const lastHeard = countFlag(values['last-heard'], 'last-heard', 0, '3');
      const status = await call<MeetingStatusView>('GET', `/meetings/${enc(name!)}/status${lastHeard === undefined ? '' : `?last_heard=${lastHeard}`}`);
      return { json: status, text: statusText(name!.toLowerCase(), status) };
    },
  },
  'meeting-say': {
    usage: 'parley meeting say NAME TEXT',
    summary: 'Say something in a meeting (joins it if need be)',
    positionals: 2,
    async run(call, [name, text]) {
      const said = await call<Said>('POST', `/meetings/${enc(name!)}/say`, { text });
      return { json: said, text: `said #${said.number} in ${name!.toLowerCase()}${said.truncated ? ' [truncated]' : ''}${said.redacted ? ' [redacted]' : ''}` };
    },
  },
  'meeting-hear': {
    usage: 'parley meeting hear NAME [--last-heard N] [--limit N]',
    summary: 'Hear what others said in a meeting since you last heard (the hub keeps your place; --last-heard N: after line N)',
    options: { 'last-heard': { type: 'string' }, limit: { type: 'string' } },
    positionals: 1,
    async run(call, [name], values) {
      const query = [
        ['last_heard', countFlag(values['last-heard'], 'last-heard', 0, '3')],
        ['limit', countFlag(values.limit, 'limit', 1, '10')],
      ].filter(([, value]) => value !== undefined);
      const route = `/meetings/${enc(name!)}/hear${query.length ? `?${query.map(([key, value]) => `${key}=${value}`).join('&')}` : ''}`;
      const heard = await call<HearView>('GET', route);
      const lines = heard.messages.map((m) => heardLine(m));
      if (heard.messages_lost) lines.unshift('(lines you had not heard were dropped: the meeting keeps only its latest lines)');
      if (heard.messages.length === 0) lines.push(`(nothing new in ${terminalText(name!.toLowerCase(), 'one line')})`);
      return { json: heard, text: lines.join('\n'), verbatim: true };
    },
  },
};
