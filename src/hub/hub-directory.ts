// The hub's participant directory as its owner sees it: registering and
// finding participants in sessions, and who is registered and connected.

import { ParleyError, parseInput } from '../errors/parley-error.js';
import type { Access } from '../schema/access.js';
import { HandleSchema, SessionNameSchema } from '../schema/names.js';
import { JoinInputSchema, type JoinInput, type Participant } from '../schema/participant.js';
import { redactInput } from './authored-input.js';
import type { Caller } from './records.js';
import type { HubContext } from './context.js';
import { ensureParticipant, ensureSession, enterSession } from './directory.js';
import { participantView, type SessionRecord } from './records.js';
import { transact } from './writer.js';

export interface SessionInfo {
  id: string;
  name: string;
  createdAt: string;
  participants: number;
}

/**
 * Registers a participant (idempotent: the same handle gets the same
 * identity; a given profile updates it) and joins it to a session, made if
 * new; `stillOpen` is asked again after the profile's scan.
 */
export async function joinSession(ctx: HubContext, input: JoinInput, defaultSession: string, stillOpen: () => void): Promise<Caller> {
  const parsed = parseInput(JoinInputSchema, input);
  const sessionName = parseInput(SessionNameSchema, parsed.session ?? defaultSession, 'session');
  const profile = (await redactInput(ctx, parsed.profile)).value;
  stillOpen();
  return ctx.lifecycle.track(
    transact(ctx, (tx) => {
      const session = ensureSession(ctx, sessionName);
      const participant = ensureParticipant(ctx, parsed.handle, profile);
      enterSession(ctx, tx, session, participant);
      return { session, participant };
    }),
  );
}

/** An already registered participant in a session it has joined, by handle and session name. */
export function memberOf(ctx: HubContext, handle: string, session: string): Caller {
  const handleName = parseInput(HandleSchema, handle, 'handle');
  const record = sessionNamed(ctx, session);
  const participant = ctx.state.participantByHandle(handleName);
  if (!participant || !record.members.has(participant.id)) {
    throw new ParleyError('NOT_FOUND', `"@${handleName}" has not joined session "${record.name}"; join first.`, { field: 'handle' });
  }
  return { participant, session: record };
}

/** The participant and session a bearer token names, or undefined for an unknown or revoked token. */
export function holderOf(ctx: HubContext, token: string): Caller | undefined {
  const holder = ctx.tokens.lookup(token);
  const participant = holder && ctx.state.participants.get(holder.participantId);
  const session = holder && ctx.state.sessions.get(holder.sessionId);
  return participant && session ? { participant, session } : undefined;
}

/** A session by name, or NOT_FOUND naming the field. */
export function sessionNamed(ctx: HubContext, session: string): SessionRecord {
  const name = parseInput(SessionNameSchema, session, 'session');
  const record = ctx.state.sessionByName(name);
  if (!record) throw new ParleyError('NOT_FOUND', `No session "${name}" on this hub; join it first to create it.`, { field: 'session' });
  return record;
}

export function sessionInfos(ctx: HubContext): SessionInfo[] {
  return [...ctx.state.sessions.values()].map((s) => ({ id: s.id, name: s.name, createdAt: new Date(s.createdAt).toISOString(), participants: s.members.size }));
}

/** Who is connected now, in every session: each participant whose presence is not offline. */
export function connectedNow(ctx: HubContext): Array<{ session: string; handle: string; connection: string; state: string }> {
  return [...ctx.state.sessions.values()].flatMap((session) =>
    ctx.presence
      .list(session.id)
      .filter((presence) => presence.connection !== 'offline')
      .map((presence) => ({ session: session.name, handle: presence.handle, connection: presence.connection, state: presence.state })),
  );
}

/** Every registered participant with its access now (null: a roster is in force and its key is not in it). */
export function everyParticipant(ctx: HubContext): Array<Participant & { pubkey: string; access: Access | null }> {
  return [...ctx.state.participants.values()].map((p) => ({ ...participantView(p), access: ctx.access.accessOf(p) ?? null }));
}
