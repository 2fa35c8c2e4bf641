// Sessions and participants. These functions write synchronously and must run
// inside a write (a `transact` callback), so they join its group commit.

import { ProfileSchema, type Profile, type ProfileInput } from '../schema/participant.js';
import { stripUndefined } from '../util/objects.js';
import { chatOpenFor } from './chat-exclusion.js';
import type { HubContext } from './context.js';
import type { ParticipantRecord, SessionRecord } from './records.js';
import { createThread, ensureSubscribed } from './threads.js';
import type { Transaction } from './writer.js';

export function ensureSession(ctx: HubContext, name: string): SessionRecord {
  const existing = ctx.state.sessionByName(name);
  if (existing) return existing;
  const session: SessionRecord = { id: ctx.newId(), name, createdAt: ctx.now(), members: new Set() };
  ctx.store.directory.insertSession({ id: session.id, name: session.name, created_at: session.createdAt });
  ctx.state.addSession(session);
  return session;
}

/** Registers a handle, or updates the profile of the one already registered (idempotent). */
export function ensureParticipant(ctx: HubContext, handle: string, profileInput: Partial<ProfileInput> | undefined): ParticipantRecord {
  const existing = ctx.state.participantByHandle(handle);
  if (existing) {
    if (profileInput === undefined || Object.keys(profileInput).length === 0) return existing;
    const merged: Profile = ProfileSchema.parse({ ...existing.profile, ...stripUndefined(profileInput) });
    if (JSON.stringify(merged) === JSON.stringify(existing.profile)) return existing;
    ctx.store.directory.updateProfile(existing.id, merged.kind, JSON.stringify(merged));
    existing.profile = merged;
    existing.kind = merged.kind;
    return existing;
  }
  const profile: Profile = ProfileSchema.parse(stripUndefined(profileInput ?? {}));
  // The private key goes to its own file under the home (custodial), never into the store. A batch
  // that fails after this leaves an unused key file behind, which is harmless: nothing names it.
  const keys = ctx.keys.createParticipant();
  const createdAt = ctx.now();
  ctx.store.directory.insertParticipant({
    id: keys.id,
    handle,
    kind: profile.kind,
    profile: JSON.stringify(profile),
    public_key: keys.raw,
    created_at: createdAt,
    hub_key: null,
    hub_name: null,
  });
  const record: ParticipantRecord = {
    id: keys.id,
    handle,
    kind: profile.kind,
    profile,
    publicKey: keys.raw.toString('base64'),
    createdAt: new Date(createdAt).toISOString(),
  };
  ctx.state.addParticipant(record);
  return record;
}

/** Makes a participant a member of a session, and nothing more (no channel joined): inside a write. */
export function addToSession(ctx: HubContext, session: SessionRecord, participant: ParticipantRecord): void {
  if (session.members.has(participant.id)) return;
  ctx.store.directory.addMember(session.id, participant.id, ctx.now());
  session.members.add(participant.id);
}

/**
 * Puts a participant in a session and subscribes them to its default channel
 * (created on first use) — unless chat is closed for them: then no channel is
 * made or joined (nothing of chat is stored, and they count in no channel).
 */
export function enterSession(ctx: HubContext, tx: Transaction, session: SessionRecord, participant: ParticipantRecord): void {
  addToSession(ctx, session, participant);
  if (!chatOpenFor(ctx.config, participant.profile)) return;
  const name = ctx.config.chat.defaultChannel;
  const general = ctx.state.channel(session.id, name);
  if (general) ensureSubscribed(ctx, general, participant.id);
  else createThread(ctx, tx, { session, kind: 'channel', name, createdBy: participant.id, members: [] });
}
