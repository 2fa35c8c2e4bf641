// The records the hub keeps in memory (see state.ts), and the caller every
// operation runs for: plain shapes, below every file that uses them.

import type { ThreadControlState } from '../schema/control.js';
import type { Participant, Profile } from '../schema/participant.js';
import type { ThreadKind } from '../schema/views.js';
import type { Subscription } from '../store/thread-store.js';
import { keyTextOf } from './participant-key.js';

export type { ThreadKind } from '../schema/views.js';

export interface SessionRecord {
  id: string;
  name: string;
  createdAt: number;
  members: Set<string>;
}

export interface ParticipantRecord extends Participant {
  kind: Profile['kind'];
  /** The key (`ed25519:…`) of the linked hub that hosts it; absent: this hub hosts it. */
  hubKey?: string;
}

export interface MembershipRecord {
  participantId: string;
  subscription: Subscription;
  invited: boolean;
  inviteProfile?: Partial<Profile>;
  hardMuted: boolean;
  mutedBy?: string;
}

export interface ThreadRecord {
  id: string;
  sessionId: string;
  kind: ThreadKind;
  name: string;
  parentId?: string;
  dmKey?: string;
  createdBy: string;
  createdSeq: number;
  state: ThreadControlState;
  members: Map<string, MembershipRecord>;
}

/** Who acts, and in which session: every operation runs in exactly one. */
export interface Caller {
  participant: ParticipantRecord;
  session: SessionRecord;
}

/**
 * A participant as the API shows it (the record minus the hub's own fields),
 * with its public key also as rosters write it (`pubkey`, "ed25519:…").
 */
export function participantView(p: Participant): Participant & { pubkey: string } {
  const view = { id: p.id, handle: p.handle, profile: p.profile, publicKey: p.publicKey, pubkey: keyTextOf(p), createdAt: p.createdAt };
  return p.hub === undefined ? view : { ...view, hub: p.hub };
}
