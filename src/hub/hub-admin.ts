// The hub owner's surface: bearer tokens, and the roster in force. What the
// admin token's routes and the CLI on the hub's machine reach, beside the
// participants' own entries (entries.ts).

import type { Roster } from '../schema/roster.js';
import type { TokenKind } from '../schema/token.js';
import { writeRosterFile } from '../trust/roster-file.js';
import type { HubContext } from './context.js';
import { rosterViewOf } from './roster-book.js';
import { assertDropsConfirmed, assertMayPush, type RosterPushOptions } from './roster-push.js';
import { hashToken } from './tokens.js';

/** A participant in a session, by ids, as a token names it. */
type Holder = { participantId: string; sessionId: string };

/** What a request authenticated with a token holds of it: the token's hash, and whether it is still valid. */
export interface Credential {
  id: string;
  revoked: AbortSignal;
}

/** A new bearer token for the holder (earlier ones still work); the plaintext, returned once, once it is stored. */
export async function issueToken(ctx: HubContext, holder: Holder, kind: TokenKind): Promise<string> {
  const { value, committed } = ctx.store.writes.write(() => ctx.tokens.issue(holder, ctx.now(), kind));
  await committed;
  return value;
}

/** Revokes every token of the holder and returns a new one. */
export async function rotateToken(ctx: HubContext, holder: Holder): Promise<string> {
  const { value, committed } = ctx.store.writes.write(() => {
    ctx.tokens.revoke(holder);
    return ctx.tokens.issue(holder, ctx.now());
  });
  await committed;
  return value;
}

/** Revokes one token, leaving the participant's others working (signing a browser out); false for one unknown. */
export async function revokeToken(ctx: HubContext, token: string): Promise<boolean> {
  if (!ctx.tokens.lookup(token)) return false;
  const { value, committed } = ctx.store.writes.write(() => ctx.tokens.revokeOne(token));
  await committed;
  return value;
}

/** A token's id (its hash) and the signal that aborts when it is revoked (see TokenRegistry.revocationSignal). */
export function credentialOf(ctx: HubContext, token: string): Credential {
  const id = hashToken(token);
  return { id, revoked: ctx.tokens.revocationSignal(id) };
}

/**
 * Accepts a new roster version (admin-signed, same org, newer; refusals store
 * nothing) and puts it in force at once, then writes it to the roster file
 * (`written` says whether that worked; it is in force either way, kept in
 * the store). A first roster only from the owner, and a version that leaves
 * out members holding live sessions only with `confirm` (see roster-push.ts).
 */
export async function acceptRoster(ctx: HubContext, file: string, doc: unknown, options: RosterPushOptions): Promise<{ roster: Roster; file: string; written: boolean }> {
  assertMayPush(ctx, options.from ?? 'owner');
  // A version a peer brings is the org's admins' decision, signed by them: it needs no confirmation here.
  const vet = (current: Roster | undefined, next: Roster): void => assertDropsConfirmed(ctx, current, next, options.confirm === true || options.from === 'peer');
  const roster = await ctx.lifecycle.track(ctx.rosters.accept(doc, ctx.now(), vet));
  ctx.access.useRoster(rosterViewOf(roster));
  ctx.logger.info('roster accepted', { org: roster.org_id, version: roster.version, members: roster.members.length });
  try {
    writeRosterFile(file, roster);
    return { roster, file, written: true };
  } catch (error) {
    ctx.logger.error('the accepted roster is in force but could not be written to its file', { file, error });
    return { roster, file, written: false };
  }
}
