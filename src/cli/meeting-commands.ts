import { ParleyError } from '../errors/parley-error.js';
import type { HearView, MeetingStatusView, MeetingView } from '../schema/views.js';
import { participantCommand } from './rest-command.js';
import { styleFor } from './style.js';
import { terminalText } from './terminal-text.js';

/**
 * The `parley meeting …` commands: one REST call each, printed as sentences
 * (JSON with --json). Where a participant stopped hearing is kept by the hub,
 * so `hear` twice gives only what is new, as MCP's meeting_hear does.
 */
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

export const meetingList = participantCommand(async (api) => {
  const meetings = await api.meetings();
  const result = { meetings };
  if (meetings.length === 0) return { json: result, text: '(no meetings in this session; "parley meeting join NAME" starts one)' };
  const width = Math.max(...meetings.map((m) => m.name.length));
  const lines = meetings.map((m) => `${m.name.padEnd(width)}  ${here(m.active)}, ${m.latest === 0 ? 'nothing said yet' : `latest line #${m.latest}`}`);
  return { json: result, text: lines.join('\n') };
});

export const meetingJoin = participantCommand(async (api, [name]) => {
  const view = await api.meetingJoin(name!);
  return { json: view, text: `joined ${view.name}; ${here(view.who.length)}: ${handles(view)}` };
});

export const meetingLeave = participantCommand(async (api, [name]) => {
  const result = await api.meetingLeave(name!);
  return { json: result, text: result.left ? `left ${name!.toLowerCase()}` : `you were not in ${name!.toLowerCase()}; nothing to leave` };
});

export const meetingWho = participantCommand(async (api, [name]) => {
  const view = await api.meetingWho(name!);
  if (view.who.length === 0) return { json: view, text: `nobody is in ${view.name}` };
  const width = Math.max(...view.who.map((w) => w.handle.length)) + 1;
  const lines = view.who.map((w) => `${`@${w.handle}`.padEnd(width)}  joined ${w.joinedAt.slice(11, 19)}${w.role ? `  (${w.role})` : ''}`);
  return { json: view, text: lines.join('\n') };
});

export const meetingStatus = participantCommand(async (api, [name], values) => {
  const status = await api.meetingStatus(name!, countFlag(values['last-heard'], 'last-heard', 0, '3'));
  return { json: status, text: statusText(name!.toLowerCase(), status) };
});

export const meetingSay = participantCommand(async (api, [name, text]) => {
  const said = await api.meetingSay(name!, text!);
  return { json: said, text: `said #${said.number} in ${name!.toLowerCase()}${said.truncated ? ' [truncated]' : ''}${said.redacted ? ' [redacted]' : ''}` };
});

export const meetingHear = participantCommand(async (api, [name], values) => {
  const lastHeard = countFlag(values['last-heard'], 'last-heard', 0, '3');
  const limit = countFlag(values.limit, 'limit', 1, '10');
  const heard = await api.meetingHear({ meeting: name!, ...(lastHeard === undefined ? {} : { last_heard: lastHeard }), ...(limit === undefined ? {} : { limit }) });
  const lines = heard.messages.map((m) => heardLine(m));
  if (heard.messages_lost) lines.unshift('(lines you had not heard were dropped: the meeting keeps only its latest lines)');
  if (heard.messages.length === 0) lines.push(`(nothing new in ${terminalText(name!.toLowerCase(), 'one line')})`);
  return { json: heard, text: lines.join('\n'), verbatim: true };
});
