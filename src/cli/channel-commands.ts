import { ParleyError } from '../errors/parley-error.js';
import type { ControlInput } from '../schema/control.js';
import type { ChannelAccessView } from '../schema/views.js';
import { participantCommand, type Flags } from './rest-command.js';

/**
 * `parley channel policy NAME`: a channel's access policy shown, or (an
 * admin's) set from the flags given, each left as it is when not given.
 */
export const channelPolicy = participantCommand(async (api, [name], values) => {
  const access = channelPolicyFlags(values);
  if (Object.keys(access).length === 0) {
    const detail = await api.threadDetail(name!);
    return { json: detail.access ?? null, text: detail.access ? channelPolicyText(detail.access) : `#${name} has no access policy: the role table alone decides who reads and writes.` };
  }
  // The hub checks the policy against its schema and names a field it refuses.
  const result = await api.control(name!, { access } as ControlInput);
  return { json: result, text: `access policy recorded: seq ${result.seq}` };
});

/** The access control's value from `parley channel policy` flags: only what was given (the rest keeps its value). */
function channelPolicyFlags(values: Flags): Record<string, unknown> {
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
