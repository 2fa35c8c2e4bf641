// Channel access policies: who may read, write and administer a channel.
// A channel without one follows the role table alone. Side channels have no
// policy of their own: they follow their parent channel's (what is said
// beside a channel is as private as the channel). DMs have none: their two
// participants are their audience. The role table applies on top: an
// observer listed as a writer still cannot post (roles are coarse).

import { ParleyError } from '../errors/parley-error.js';
import { AccessSchema, type Access } from '../schema/access.js';
import type { ControlParsed, SignedChannelPolicy } from '../schema/control.js';
import { parseChannelPolicy, policyAllows, signPolicy, verifyPolicy, type ChannelPolicy, type PolicySubject, type Selector } from '../trust/channel-policy.js';
import { formatPublicKey, parsePublicKey } from '../trust/node-id.js';
import type { HubContext } from './context.js';

/** What deciding access to a channel uses: its record, and each participant's standing. */
type PolicyContext = Pick<HubContext, 'state' | 'access'>;
import type { RetentionSeams } from './retention.js';
import type { Caller } from './records.js';
import type { ParticipantRecord, ThreadRecord } from './records.js';
import { canSee } from './threads.js';
import { keyTextOf, rawKeyOf } from './participant-key.js';

/** Side channels nest; a loop in the parent links (a corrupt store) must not hang a read. */
const MAX_PARENT_DEPTH = 32;

/** The channel whose policy governs the thread (itself, or the channel a side channel hangs from); undefined for a DM. */
export function governingChannel(ctx: PolicyContext, thread: ThreadRecord): ThreadRecord | undefined {
  let owner = thread;
  for (let depth = 0; owner.kind === 'side' && owner.parentId !== undefined && depth < MAX_PARENT_DEPTH; depth += 1) {
    const parent = ctx.state.threads.get(owner.parentId);
    if (!parent) break;
    owner = parent;
  }
  return owner.kind === 'dm' ? undefined : owner;
}

/** The access policy in force for the thread, if any. */
export function policyOf(ctx: PolicyContext, thread: ThreadRecord): SignedChannelPolicy | undefined {
  return governingChannel(ctx, thread)?.state.access;
}

function subjectOf(ctx: PolicyContext, participant: ParticipantRecord): PolicySubject {
  return { raw: rawKeyOf(participant), access: ctx.access.accessOf(participant) };
}

/** Whether the participant may see the thread's events: a DM's two participants; a channel's readers (everyone without a policy). */
export function mayRead(ctx: PolicyContext, thread: ThreadRecord, participantId: string): boolean {
  if (!canSee(thread, participantId)) return false;
  const signed = policyOf(ctx, thread);
  if (!signed) return true;
  const participant = ctx.state.participants.get(participantId);
  return participant !== undefined && policyAllows(signed.policy.readers, subjectOf(ctx, participant));
}

/** Refuses (FORBIDDEN_ROLE) a participant the thread's policy does not list among its readers; nothing is done. */
export function assertMayRead(ctx: PolicyContext, caller: Caller, thread: ThreadRecord, field = 'thread'): void {
  assertListed(ctx, caller, thread, 'readers', field);
}

/** Refuses (FORBIDDEN_ROLE) a post by a participant the thread's policy does not list among its writers; nothing is stored. */
export function assertMayWrite(ctx: PolicyContext, caller: Caller, thread: ThreadRecord, field = 'thread'): void {
  assertListed(ctx, caller, thread, 'writers', field);
}

function assertListed(ctx: PolicyContext, caller: Caller, thread: ThreadRecord, list: 'readers' | 'writers', field: string): void {
  const channel = governingChannel(ctx, thread);
  const signed = channel?.state.access;
  if (!channel || !signed) return;
  const me = caller.participant;
  if (policyAllows(signed.policy[list], subjectOf(ctx, me))) return;
  const admins = channelAdmins(ctx, signed.policy);
  throw new ParleyError(
    'FORBIDDEN_ROLE',
    `The access policy (v${signed.policy.version}) of ${placeOf(thread, channel)} does not list you (@${me.handle}) among its ${list}; nothing was done. Its admins (${adminWords(admins)}) can change it: parley channel policy ${channel.name} --${list} …`,
    { field, details: { list, policy_version: signed.policy.version, channel: channel.id, grantors: admins } },
  );
}

/**
 * Refuses (INVALID_INPUT on `field`) addressing a request in a thread to a
 * participant its policy does not let read it: they would never see it, nor
 * be able to answer it, and it would stay open for good. Nothing is stored.
 */
export function assertAddresseeMayRead(ctx: PolicyContext, thread: ThreadRecord, addressee: ParticipantRecord, field: string): void {
  const channel = governingChannel(ctx, thread);
  const signed = channel?.state.access;
  if (!channel || !signed || policyAllows(signed.policy.readers, subjectOf(ctx, addressee))) return;
  const admins = channelAdmins(ctx, signed.policy);
  throw new ParleyError(
    'INVALID_INPUT',
    `Invalid ${field}: @${addressee.handle} cannot read ${placeOf(thread, channel)}, whose access policy (v${signed.policy.version}) does not list them among its readers, so they could neither see nor answer the request; nothing was sent. Send it in a direct message (leave out the thread), or ask its admins (${adminWords(admins)}) to add @${addressee.handle} as a reader: parley channel policy ${channel.name} --readers …`,
    { field, details: { list: 'readers', policy_version: signed.policy.version, channel: channel.id, grantors: admins } },
  );
}

/** How a refusal names the thread: the channel, or the side channel and the channel whose policy it follows. */
function placeOf(thread: ThreadRecord, channel: ThreadRecord): string {
  return channel === thread ? `channel "${channel.name}"` : `"${thread.name}" (a side channel of "${channel.name}")`;
}

function adminWords(admins: string[]): string {
  return admins.length ? admins.map((h) => `@${h}`).join(' or ') : 'an admin';
}

/** Handles of the participants the policy's admins list names (any admin when it names the role), humans first. */
function channelAdmins(ctx: PolicyContext, policy: ChannelPolicy): string[] {
  const everyone = [...ctx.state.participants.values()];
  const handles = everyone
    .filter((p) => ctx.access.accessOf(p) === 'admin' && policyAllows(policy.admins, subjectOf(ctx, p)))
    .sort((a, b) => Number(b.kind === 'human') - Number(a.kind === 'human') || a.handle.localeCompare(b.handle))
    .map((p) => p.handle);
  return handles.length ? handles.slice(0, 3) : ctx.access.grantors();
}

type AccessInput = Extract<ControlParsed, { access: unknown }>['access'];

/** The lists a channel's first policy starts from when left out: what the role table allows anyway. */
const ROLE_TABLE_LISTS: Pick<ChannelPolicy, 'readers' | 'writers' | 'admins'> = {
  readers: [{ access: 'observer' }],
  writers: [{ access: 'member' }],
  admins: [{ access: 'admin' }],
};

/**
 * The next signed policy of a channel from an `access` control: selectors
 * resolved, defaults filled in, checked (only admins set it; every admin it
 * lists is an admin of the hub), signed with the setter's custodial key.
 */
export function nextSignedPolicy(ctx: PolicyContext & Pick<HubContext, 'keys'>, caller: Caller, thread: ThreadRecord, input: AccessInput): SignedChannelPolicy {
  if (thread.kind === 'dm') {
    throw new ParleyError('INVALID_INPUT', 'Invalid control.access: a direct-message thread needs no access policy (its two participants are its audience); set one on a channel.', {
      field: 'control.access',
    });
  }
  if (thread.kind === 'side') {
    const channel = governingChannel(ctx, thread);
    throw new ParleyError(
      'INVALID_INPUT',
      `Invalid control.access: side channel "${thread.name}" follows its parent channel's access policy${channel ? ` ("${channel.name}")` : ''}; set the policy there.`,
      { field: 'control.access' },
    );
  }
  const me = caller.participant;
  const current = thread.state.access?.policy;
  const subject = subjectOf(ctx, me);
  if (subject.access !== 'admin' && !(current && policyAllows(current.admins, subject))) {
    throw new ParleyError('FORBIDDEN_ROLE', `Setting the access policy of channel "${thread.name}" needs admin; you (@${me.handle}) are ${subject.access ?? 'not in the roster'}; nothing was done.`, {
      field: 'control.access',
      details: { need: 'admin', have: subject.access, grantors: ctx.access.grantors() },
    });
  }
  const listOf = (list: 'readers' | 'writers' | 'admins'): Selector[] => {
    const given = input[list];
    if (given === undefined) return (current ?? ROLE_TABLE_LISTS)[list];
    return given.map((written, i) => selectorOf(ctx, caller, written, `control.access.${list}.${i}`));
  };
  const policy = parseChannelPolicyAt({
    thread: thread.id,
    version: (current?.version ?? 0) + 1,
    readers: listOf('readers'),
    writers: listOf('writers'),
    admins: listOf('admins'),
    retention_hours: input.retention_hours ?? current?.retention_hours,
    retention_messages: input.retention_messages ?? current?.retention_messages,
    allow_history_fetch: input.allow_history_fetch ?? current?.allow_history_fetch,
  });
  assertAdminsAreAdmins(ctx, policy.admins);
  const keys = ctx.keys.participant(me.id);
  return { policy, signer: formatPublicKey(keys.raw), sig: signPolicy(policy, keys.privateKey).toString('base64url') };
}

/** parseChannelPolicy with undefined fields dropped (so the schema's defaults apply) and fields named as the control's. */
function parseChannelPolicyAt(draft: Record<string, unknown>): ChannelPolicy {
  const defined = Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== undefined));
  try {
    return parseChannelPolicy(defined);
  } catch (error) {
    if (error instanceof ParleyError && error.field !== undefined) {
      throw new ParleyError('INVALID_INPUT', error.message.replace(`field ${error.field}`, `field control.access.${error.field}`), {
        field: `control.access.${error.field}`,
      });
    }
    throw error;
  }
}

/** "@handle" → that participant's key; "ed25519:…" → that key; a role name → that role and above. */
function selectorOf(ctx: PolicyContext & Pick<HubContext, 'keys'>, caller: Caller, written: string | Selector, field: string): Selector {
  if (typeof written !== 'string') return written;
  if (written.startsWith('@')) {
    const participant = ctx.state.participantByHandle(written.slice(1));
    if (!participant || !caller.session.members.has(participant.id)) {
      throw new ParleyError('NOT_FOUND', `Invalid ${field}: no participant "${written}" in session "${caller.session.name}". Check the handle, or give their key (ed25519:…).`, { field });
    }
    return { key: keyTextOf(participant) };
  }
  if (written.startsWith('ed25519:')) return { key: written };
  const role = AccessSchema.safeParse(written);
  if (role.success) return { access: role.data };
  throw new ParleyError('INVALID_INPUT', `Invalid ${field}: "${written}" is not @handle, ed25519:… or a role (observer, member, operator, admin).`, { field });
}

/**
 * Checks an access policy another hub's admin signed for this channel (its
 * `thread` is that hub's id of the channel: channels are one across hubs by
 * name): signed by `authorKey`, the control's author, whose signature holds,
 * with admins that are admins here. Whether it takes the place of the policy
 * in force: a higher version does; of two of one version (set on two hubs at
 * once) the one with the greater signature, so that every hub keeps the same.
 */
export function supersedesPolicy(ctx: PolicyContext, thread: ThreadRecord, signed: SignedChannelPolicy, authorKey: string, field: string): boolean {
  if (thread.kind !== 'channel') throw new ParleyError('INVALID_INPUT', `Invalid ${field}: an access policy is set on a channel, not on a ${thread.kind === 'dm' ? 'direct-message thread' : 'side channel'}.`, { field });
  if (signed.signer !== authorKey) throw new ParleyError('BAD_SIGNATURE', `Invalid ${field}.signer: the policy is signed by ${signed.signer}, not by the control's author (${authorKey}).`, { field: `${field}.signer` });
  if (!verifyPolicy(signed.policy, parsePublicKey(signed.signer), Buffer.from(signed.sig, 'base64url'))) {
    throw new ParleyError('BAD_SIGNATURE', `Invalid ${field}.sig: the policy's signature does not hold for its signer.`, { field: `${field}.sig` });
  }
  assertAdminsAreAdmins(ctx, signed.policy.admins);
  const current = thread.state.access;
  if (!current || signed.policy.version > current.policy.version) return true;
  return signed.policy.version === current.policy.version && signed.sig > current.sig;
}

/** A channel's admins must be roster admins. A role selector in the list must therefore be admin itself. */
function assertAdminsAreAdmins(ctx: PolicyContext, admins: readonly Selector[]): void {
  admins.forEach((selector, i) => {
    const field = `control.access.admins.${i}`;
    if ('access' in selector) {
      if (selector.access !== 'admin') {
        throw new ParleyError('INVALID_INPUT', `Invalid ${field}: a channel's admins must be admins of the hub; "${selector.access}" is not (use "admin" or an admin's key).`, { field });
      }
      return;
    }
    const participant = [...ctx.state.participants.values()].find((p) => keyTextOf(p) === selector.key);
    const access: Access | undefined = participant && ctx.access.accessOf(participant);
    if (access !== 'admin') {
      const who = participant ? `@${participant.handle} is ${access ?? 'not in the roster'}` : 'that key is no participant of this hub';
      throw new ParleyError('INVALID_INPUT', `Invalid ${field}: a channel's admins must be admins of the hub; ${who}. Grant admin first, or leave them out.`, { field });
    }
  });
}

/** Retention's seam: a channel's access policy sets its limits (its side channels follow, see retention.ts). */
export function policyRetentionLimits(ctx: PolicyContext): NonNullable<RetentionSeams['channelLimits']> {
  return (channel) => {
    const policy = ctx.state.threads.get(channel.id)?.state.access?.policy;
    return policy && { hours: policy.retention_hours, messages: policy.retention_messages };
  };
}
