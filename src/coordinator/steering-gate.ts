/**
 * The steering a run must honour: a hard-muted participant is not run, nor is
 * any non-human in a paused thread, nor anyone in a thread that is done, closed
 * or past its ttl. Returns why not, or undefined when the run may go ahead.
 */

import type { ParticipantKind } from '../schema/participant.js';
import type { ThreadDetail } from '../schema/views.js';

export type Refusal = { reason: 'muted' | 'paused' | 'done' | 'ttl'; says: string };

export function refusalFor(detail: ThreadDetail, handle: string, kind: ParticipantKind | undefined, now: number): Refusal | undefined {
  const { controls } = detail;
  if (controls.done) return { reason: 'done', says: `the thread is done${by(controls.doneBy)}` };
  if (controls.closed) return { reason: 'done', says: 'the side channel is closed' };
  if (controls.expiresAt !== undefined && Date.parse(controls.expiresAt) <= now) {
    return { reason: 'ttl', says: `the thread's ttl ran out at ${controls.expiresAt}` };
  }
  const member = detail.members.find((m) => m.handle.toLowerCase() === handle.toLowerCase());
  if (member?.hardMuted) return { reason: 'muted', says: `${handle} is hard-muted there${by(member.mutedBy)}` };
  // A paused thread still takes humans' messages: only non-humans wait for it to resume.
  if (controls.paused && kind !== 'human') return { reason: 'paused', says: `the thread is paused${by(controls.pausedBy)}` };
  return undefined;
}

function by(handle: string | undefined): string {
  return handle === undefined ? '' : ` (by ${handle})`;
}
