import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveHome } from '../config/home.js';
import { DEFAULT_CLI_HISTORY_LIMIT } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import type { ParleyEvent } from '../schema/event.js';
import type { ChannelAccessView } from '../schema/views.js';
import { shortRequestId } from '../format/event-text.js';
import type { Command } from './command.js';
import { STEERING_COMMANDS } from './steering-commands.js';
import { SUBSCRIPTION_COMMANDS } from './subscription-commands.js';
import { formatAll, inboxFooter, inboxLines, type Caller, type InboxItemView } from './event-lines.js';
import { loadToken } from '../client/credentials.js';
import { hubUrl } from '../client/hub-address.js';
import { OneShotJson } from '../client/one-shot-json.js';
import { MEETING_COMMANDS } from './meeting-commands.js';
import { terminalJson, terminalText } from './terminal-text.js';

/**
 * The conversation commands of the `parley` CLI: each is one REST call made
 * with the participant's token (PARLEY_TOKEN, or --as HANDLE [--session] from
 * the tokens `parley join` kept in the home). Output is readable by default
 * and JSON with --json.
 */
const COMMON = {
  as: { type: 'string' },
  session: { type: 'string' },
  home: { type: 'string' },
  url: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const enc = encodeURIComponent;

/** A `--name JSON` flag's value, parsed; malformed JSON is INVALID_INPUT naming the flag. */
function jsonFlag(value: unknown, name: string): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new ParleyError('INVALID_INPUT', `Invalid --${name}: it is not valid JSON.`, { field: name });
  }
}

export const COMMANDS: Record<string, Command> = {
  say: {
    usage: 'parley say THREAD TEXT [--to HANDLE] [--reply-to ID]',
    summary: 'Post a message to a thread',
    options: { to: { type: 'string' }, 'reply-to': { type: 'string' } },
    positionals: 2,
    async run(call, [thread, text], values) {
      const result = await call<{ id: string; seq: number; truncated: boolean; redacted: boolean }>('POST', `/threads/${enc(thread!)}/messages`, {
        text,
        ...(values.to ? { to: values.to } : {}),
        ...(values['reply-to'] ? { reply_to: values['reply-to'] } : {}),
      });
      return { json: result, text: `posted: seq ${result.seq}, id ${result.id}${result.truncated ? ' [truncated]' : ''}${result.redacted ? ' [redacted]' : ''}` };
    },
  },
  dm: {
    usage: 'parley dm HANDLE TEXT',
    summary: 'Send a direct message',
    positionals: 2,
    async run(call, [to, text]) {
      const result = await call<{ id: string; seq: number }>('POST', '/dm', { to, text });
      return { json: result, text: `sent: seq ${result.seq}, id ${result.id}` };
    },
  },
  read: {
    usage: 'parley read THREAD [--limit N]',
    summary: 'Read what is new in a thread since your cursor, and mark it read',
    options: { limit: { type: 'string' } },
    positionals: 1,
    async run(call, [thread], values) {
      const result = await call<{ events: ParleyEvent[]; newPointer: number; more: boolean }>(
        'GET',
        `/threads/${enc(thread!)}/new${values.limit ? `?limit=${enc(String(values.limit))}` : ''}`,
      );
      const lines = await formatAll(call, result.events);
      return { json: result, text: lines.length ? lines.join('\n') + (result.more ? '\n(more: read again)' : '') : '(nothing new)', verbatim: true };
    },
  },
  history: {
    usage: 'parley history THREAD [--limit N]',
    summary: `Show a thread's most recent events, oldest first (default ${DEFAULT_CLI_HISTORY_LIMIT}); marks nothing read`,
    options: { limit: { type: 'string' } },
    positionals: 1,
    async run(call, [thread], values) {
      const limit = values.limit === undefined ? String(DEFAULT_CLI_HISTORY_LIMIT) : String(values.limit);
      const result = await call<{ events: ParleyEvent[]; more: boolean }>('GET', `/threads/${enc(thread!)}/history?limit=${enc(limit)}`);
      const lines = await formatAll(call, result.events);
      if (lines.length === 0) return { json: result, text: '(no history)' };
      return { json: result, text: (result.more ? '(earlier events not shown: raise --limit)\n' : '') + lines.join('\n'), verbatim: true };
    },
  },
  inbox: {
    usage: 'parley inbox [--peek] [--limit N]',
    summary: 'What needs your attention, by priority; marks what it shows read (--peek looks without marking)',
    options: { peek: { type: 'boolean' }, limit: { type: 'string' } },
    positionals: 0,
    async run(call, _args, values) {
      const query = [values.peek ? 'peek=true' : '', values.limit ? `limit=${enc(String(values.limit))}` : ''].filter(Boolean).join('&');
      const result = await call<{ items: InboxItemView[]; more: boolean }>('GET', `/inbox${query ? `?${query}` : ''}`);
      if (result.items.length === 0) return { json: result, text: '(inbox empty)' };
      const lines = await inboxLines(call, result.items);
      return { json: result, text: `${lines.join('\n')}\n${inboxFooter(result.items.length, values.peek === true, result.more)}`, verbatim: true };
    },
  },
  wait: {
    usage: 'parley wait [--timeout MS]',
    summary: 'Block until something wakes you (or the timeout), then show your inbox and mark it read',
    options: { timeout: { type: 'string' } },
    positionals: 0,
    async run(call, _args, values) {
      const result = await call<{ items: InboxItemView[]; more: boolean; timedOut: boolean }>(
        'GET',
        `/inbox/wait${values.timeout ? `?timeout_ms=${enc(String(values.timeout))}` : ''}`,
      );
      if (result.items.length === 0) return { json: result, text: '(nothing arrived)' };
      const lines = await inboxLines(call, result.items);
      return { json: result, text: `${lines.join('\n')}\n${inboxFooter(result.items.length, false, result.more)}`, verbatim: true };
    },
  },
  ack: {
    usage: 'parley ack ID [ID ...]',
    summary: 'Acknowledge direct items (DMs, requests, mentions)',
    positionals: [1, 1000],
    async run(call, ids) {
      const result = await call<{ acknowledged: number }>('POST', '/inbox/ack', { ids });
      return { json: result, text: `acknowledged ${result.acknowledged}` };
    },
  },
  whoami: {
    usage: 'parley whoami [--key]',
    summary: 'Who you are on the hub: handle, id, access (permission role) and how it is decided; --key adds your public key',
    options: { key: { type: 'boolean' } },
    positionals: 0,
    async run(call, _args, values) {
      type Me = { participant: { id: string; handle: string; pubkey: string; profile: { kind: string; roles: string[] } }; session: { name: string }; access: string | null; trust: { mode: string; org?: string; version?: number } };
      const me = await call<Me>('GET', '/whoami');
      const pubkey = me.participant.pubkey;
      // A participant registered at this home has its private key here (custodial); the path is shown, never the key.
      const keyFile = path.join(resolveHome(values.home as string | undefined), 'keys', 'participants', `${me.participant.id}.key`);
      const held = existsSync(keyFile);
      const trust = me.trust.mode === 'roster' ? `roster ${me.trust.org ?? ''} v${me.trust.version ?? ''}` : 'local mode (no roster)';
      const lines = [
        `@${me.participant.handle} · ${me.participant.id} (${me.participant.profile.kind}, session "${me.session.name}")`,
        `access:  ${me.access ?? 'none: not in the roster'} (${trust})`,
        ...(me.participant.profile.roles.length > 0 ? [`profile roles: ${me.participant.profile.roles.join(', ')} (descriptive; they grant nothing)`] : []),
        ...(values.key === true ? [`pubkey:  ${pubkey}`, `key:     ${held ? `${keyFile} (held by this home's hub, which signs for you)` : 'not held in this home'}`] : []),
      ];
      const json = values.key === true ? { ...me, pubkey, keyFile: held ? keyFile : null } : me;
      return { json, text: lines.join('\n') };
    },
  },
  who: {
    usage: 'parley who',
    summary: 'Presence of everyone in the session: connected, waiting or offline',
    positionals: 0,
    async run(call) {
      type Presence = { handle: string; connection: string; state: string; note?: string; details: { profile: { kind: string; client?: string } } };
      const result = await call<{ presence: Presence[] }>('GET', '/presence');
      // What they declared shows only when it says more than being there (listening) or not (offline).
      const declared = (p: Presence): string => (p.state === 'listening' || p.state === 'offline' ? '' : `, ${p.state}`) + (p.note ? ` — ${p.note}` : '');
      return {
        json: result,
        text: result.presence
          .map((p) => `@${p.handle.padEnd(16)} ${p.connection.padEnd(9)} ${p.details.profile.kind}${p.details.profile.client ? ` (${p.details.profile.client})` : ''}${declared(p)}`)
          .join('\n'),
      };
    },
  },
  threads: {
    usage: 'parley threads',
    summary: 'Threads of the session with unread counts',
    positionals: 0,
    async run(call) {
      const result = await call<{ threads: Array<{ id: string; kind: string; name: string; with?: string; unread?: number; closed: boolean; paused: boolean }> }>('GET', '/threads');
      return {
        json: result,
        text: result.threads
          .map((t) => `${t.kind.padEnd(8)} ${(t.kind === 'channel' ? `#${t.name}` : t.with ? `@${t.with}` : t.name).padEnd(28)} ${String(t.unread ?? 0).padStart(4)} unread${t.paused ? '  [paused]' : ''}${t.closed ? '  [closed]' : ''}  ${t.id}`)
          .join('\n'),
      };
    },
  },
  search: {
    usage: 'parley search WORDS [--thread THREAD]',
    summary: 'Full-text search in the session',
    options: { thread: { type: 'string' } },
    positionals: 1,
    async run(call, [query], values) {
      const result = await call<{ events: ParleyEvent[] }>('GET', `/search?q=${enc(query!)}${values.thread ? `&thread=${enc(String(values.thread))}` : ''}`);
      return { json: result, text: result.events.length ? (await formatAll(call, result.events)).join('\n') : '(no match)', verbatim: true };
    },
  },
};

Object.assign(COMMANDS, {
  'thread-create': {
    usage: 'parley thread create NAME [--member HANDLE ...]',
    summary: 'Create a channel',
    options: { member: { type: 'string', multiple: true } },
    positionals: 1,
    async run(call, [name], values) {
      const result = await call<{ id: string; name: string }>('POST', '/threads', { name, ...(values.member ? { members: values.member } : {}) });
      return { json: result, text: `created #${result.name} (${result.id})` };
    },
  },
  'thread-rename': {
    usage: 'parley thread rename THREAD NAME',
    summary: 'Rename a thread',
    positionals: 2,
    async run(call, [thread, name]) {
      const result = await call<{ name: string }>('POST', `/threads/${enc(thread!)}/rename`, { name });
      return { json: result, text: `renamed to ${result.name}` };
    },
  },
  'thread-side': {
    usage: 'parley thread side PARENT TITLE [--from EVENT_ID] [--member HANDLE ...]',
    summary: 'Open a side channel from a thread',
    options: { from: { type: 'string' }, member: { type: 'string', multiple: true } },
    positionals: 2,
    async run(call, [parent, title], values) {
      const result = await call<{ id: string; name: string }>('POST', `/threads/${enc(parent!)}/side`, {
        title,
        ...(values.from ? { from_event: values.from } : {}),
        ...(values.member ? { members: values.member } : {}),
      });
      return { json: result, text: `opened side channel "${result.name}" (${result.id})` };
    },
  },
  'thread-close': {
    usage: 'parley thread close SIDE SUMMARY',
    summary: 'Close a side channel, posting its summary back into the parent',
    positionals: 2,
    async run(call, [thread, summary]) {
      const result = await call<{ summary_seq: number }>('POST', `/threads/${enc(thread!)}/close`, { summary });
      return { json: result, text: `closed; summary posted in the parent: seq ${result.summary_seq}` };
    },
  },
  request: {
    usage: 'parley request HANDLE INTENT [--params JSON] [--text TEXT] [--thread THREAD] [--reply-to REQUEST_ID]',
    summary: 'Send a request',
    options: { params: { type: 'string' }, text: { type: 'string' }, thread: { type: 'string' }, 'reply-to': { type: 'string' } },
    positionals: 2,
    async run(call, [to, intent], values) {
      const params = jsonFlag(values.params, 'params');
      const result = await call<{ request_id: string; hop: number }>('POST', '/requests', {
        to,
        intent,
        ...(params === undefined ? {} : { params }),
        ...(values.text ? { text: values.text } : {}),
        ...(values.thread ? { thread: values.thread } : {}),
        ...(values['reply-to'] ? { reply_to: values['reply-to'] } : {}),
      });
      const short = shortRequestId(result.request_id);
      return { json: result, text: `request ${short} sent (hop ${result.hop}${short === result.request_id ? '' : `; full id ${result.request_id}`})` };
    },
  },
  respond: {
    usage: 'parley respond REQUEST_ID Accepted|Rejected|Completed|Failed [--text TEXT] [--result JSON]',
    summary: 'Respond to a request (REQUEST_ID: the id, or its short id as the inbox shows it)',
    options: { text: { type: 'string' }, result: { type: 'string' } },
    positionals: 2,
    async run(call, [id, status], values) {
      const result = await call<{ request_id: string; status: string }>('POST', `/requests/${enc(id!)}/responses`, {
        status,
        ...(values.text ? { text: values.text } : {}),
        ...(values.result === undefined ? {} : { result: jsonFlag(values.result, 'result') }),
      });
      return { json: result, text: `responded ${result.status} to ${shortRequestId(result.request_id)}` };
    },
  },
  ...SUBSCRIPTION_COMMANDS,
  ...STEERING_COMMANDS,
  'channel-policy': {
    usage: 'parley channel policy NAME [--readers SEL ...] [--writers SEL ...] [--admins SEL ...] [--retention-hours N] [--retention-messages N] [--no-history-fetch|--history-fetch]',
    summary:
      "Show a channel's access policy, or set it (admins): each SEL is @handle, ed25519:… or a role (observer, member, operator, admin), comma-separated or repeated; \"none\" lists no one",
    options: {
      readers: { type: 'string', multiple: true },
      writers: { type: 'string', multiple: true },
      admins: { type: 'string', multiple: true },
      'retention-hours': { type: 'string' },
      'retention-messages': { type: 'string' },
      'no-history-fetch': { type: 'boolean' },
      'history-fetch': { type: 'boolean' },
    },
    positionals: 1,
    async run(call, [name], values) {
      const access = channelPolicyFlags(values);
      if (Object.keys(access).length === 0) {
        const detail = await call<{ access?: ChannelAccessView }>('GET', `/threads/${enc(name!)}`);
        return { json: detail.access ?? null, text: detail.access ? channelPolicyText(detail.access) : `#${name} has no access policy: the role table alone decides who reads and writes.` };
      }
      const result = await call<{ seq: number; control: string }>('POST', `/threads/${enc(name!)}/controls`, { access });
      return { json: result, text: `access policy recorded: seq ${result.seq}` };
    },
  },
  ...MEETING_COMMANDS,
  export: {
    usage: 'parley export THREAD [--format markdown|jsonl|signed] [--signed] [--out FILE]',
    summary: 'Export a thread (--signed: for "parley verify", with signatures and rosters)',
    options: { format: { type: 'string' }, signed: { type: 'boolean' }, out: { type: 'string' } },
    positionals: 1,
    async run(call, [thread], values) {
      if (values.signed === true && values.format !== undefined && values.format !== 'signed') {
        throw new ParleyError('INVALID_INPUT', `Invalid --format: --signed exports the signed format, not ${String(values.format)}; give one of them.`, { field: 'format' });
      }
      const format = values.signed === true ? 'signed' : String(values.format ?? 'markdown');
      const body = await call<{ body: string }>('GET', `/threads/${enc(thread!)}/export?format=${enc(format)}`);
      // JSON Lines are data for programs ("parley verify" reads these exact bytes), and JSON has escaped every C0 control in them.
      if (typeof values.out !== 'string') return { json: body, text: body.body, ...(format === 'markdown' ? {} : { verbatim: true as const, file: true as const }) };
      // An export holds the conversation: readable by its owner only, like the home.
      writeFileSync(values.out, body.body, { mode: 0o600 });
      const wrote = { file: values.out, bytes: Buffer.byteLength(body.body), format };
      return { json: wrote, text: `wrote ${wrote.bytes} bytes (${format}) to ${wrote.file}` };
    },
  },
} satisfies Record<string, Command>);

/** The access control's value from `parley channel policy` flags: only what was given (the rest keeps its value). */
function channelPolicyFlags(values: Record<string, unknown>): Record<string, unknown> {
  const access: Record<string, unknown> = {};
  for (const list of ['readers', 'writers', 'admins'] as const) {
    const given = values[list] as string[] | undefined;
    if (given === undefined) continue;
    const selectors = given.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
    access[list] = selectors.length === 1 && selectors[0] === 'none' ? [] : selectors;
  }
  // A number that is not one goes as written: the hub names the field.
  const number = (v: unknown): unknown => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v);
  if (values['retention-hours'] !== undefined) access.retention_hours = number(values['retention-hours']);
  if (values['retention-messages'] !== undefined) access.retention_messages = number(values['retention-messages']);
  if (values['no-history-fetch'] === true && values['history-fetch'] === true) {
    throw new ParleyError('INVALID_INPUT', 'Invalid --history-fetch: give --history-fetch or --no-history-fetch, not both.', { field: 'history-fetch' });
  }
  if (values['no-history-fetch'] === true) access.allow_history_fetch = false;
  if (values['history-fetch'] === true) access.allow_history_fetch = true;
  return access;
}

function channelPolicyText(view: ChannelAccessView): string {
  const named = (list: ChannelAccessView['policy']['readers']): string =>
    list.length === 0 ? '(no one)' : list.map((s) => ('key' in s ? (view.handles[s.key] ? `@${view.handles[s.key]}` : s.key) : `${s.access}+`)).join(', ');
  const p = view.policy;
  return [
    `#${view.channel} access policy v${p.version}, signed by ${view.handles[view.signer] ? `@${view.handles[view.signer]}` : view.signer}`,
    `  readers:   ${named(p.readers)}`,
    `  writers:   ${named(p.writers)}`,
    `  admins:    ${named(p.admins)}`,
    `  retention: ${p.retention_hours} hours or ${p.retention_messages} messages, whichever keeps less`,
    `  history fetch: ${p.allow_history_fetch ? 'allowed' : 'not allowed'}`,
  ].join('\n');
}

/** A conversation command's own help (`parley NAME --help`, `parley help NAME`). */
export function commandHelp(name: string): string {
  const command = COMMANDS[name]!;
  return `Usage: ${command.usage} [--as HANDLE] [--session NAME] [--home DIR] [--url URL] [--json]\n\n${command.summary}.\nAuthenticates with PARLEY_TOKEN, or with the token "parley join" kept for --as HANDLE.\n`;
}

export async function runConversationCommand(name: string, argv: string[]): Promise<number> {
  const command = COMMANDS[name];
  if (!command) throw new Error(`unknown command ${name}`);
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...COMMON, ...(command.options ?? {}) } as never });
  const v = values as Record<string, unknown>;
  if (v.help) {
    process.stdout.write(commandHelp(name));
    return 0;
  }
  const [min, max] = Array.isArray(command.positionals) ? command.positionals : [command.positionals, command.positionals];
  if (positionals.length < min || positionals.length > max) {
    process.stderr.write(`parley: usage: ${command.usage}; run "parley ${name.replace(/^(thread|meeting|channel)-/, '$1 ')} --help".\n`);
    return 2;
  }
  const token = tokenFor(v);
  const url = await hubUrl(v);
  const hub = new OneShotJson(url, token);
  const call: Caller = (method, route, body) => hub.request(method, route, body);
  const out = await command.run(call, positionals, v);
  if (!v.json && out.file) process.stdout.write(out.text);
  else process.stdout.write(`${v.json ? terminalJson(out.json) : out.verbatim ? out.text : terminalText(out.text, 'lines')}\n`);
  return 0;
}

export function tokenFor(values: Record<string, unknown>): string {
  if (typeof values.as === 'string') {
    const home = resolveHome(typeof values.home === 'string' ? values.home : undefined);
    const session = typeof values.session === 'string' ? values.session : 'default';
    const token = loadToken(home, session, values.as);
    if (!token) throw new ParleyError('UNAUTHORIZED', `No token kept for @${values.as} in session "${session}"; run "parley join ${values.as} --session ${session}" first.`);
    return token;
  }
  const fromEnv = process.env.PARLEY_TOKEN;
  if (fromEnv) return fromEnv;
  throw new ParleyError('UNAUTHORIZED', 'No credentials: set PARLEY_TOKEN, or pass --as HANDLE (after "parley join HANDLE").');
}
