import type { KeyObject } from 'node:crypto';
import type { Actor } from '../../src/hub/actor.js';
import { DecodedEnvelope } from '../../src/hub/envelope-opening.js';
import { decodeEventTuple, eventSigningBytes, signEvent, type SignedEventFields } from '../../src/trust/envelope.js';
import { ExportVerifier, type VerifyReport } from '../../src/trust/signed-export.js';
import type { TestHub } from './hub.js';

/** What a client holding its own key hands in (POST /envelopes, Actor.ingest): the fields' signing bytes and `key`'s signature, base64url. */
export function handedIn(fields: SignedEventFields, key: KeyObject): { envelope: string; sig: string } {
  return { envelope: Buffer.from(eventSigningBytes(fields)).toString('base64url'), sig: signEvent(key, fields).toString('base64url') };
}

/** The v1 signed fields of a message: to no one, without meta, signed now, 300 s to live, the first of its sender epoch. */
export function messageFields(fields: Pick<SignedEventFields, 'id' | 'from' | 'thread' | 'content'> & Partial<SignedEventFields>): SignedEventFields {
  return { to: null, kind: 'message', meta: null, ts: Date.now(), ttl_secs: 300, sender_seq: 1, sender_epoch: Buffer.alloc(16, 1), ...fields };
}

/**
 * Envelopes as a client holding its own key makes them: the v1 signed fields
 * of a message in `signer`'s #general (unless overridden), signed with its key
 * (or with `signWith`'s, for a forgery).
 */
let senderSeq = 0;

export function signedEnvelope(hub: TestHub, signer: Actor, overrides: Partial<SignedEventFields> = {}, signWith: Actor = signer): { envelope: string; sig: string } {
  const { ctx } = hub.hub.internals;
  const general = [...ctx.state.threads.values()].find((th) => th.name === 'general' && th.sessionId === signer.session.id)!;
  senderSeq += 1;
  const fields = messageFields({
    id: ctx.newId(),
    from: ctx.keys.participant(signer.participant.id).raw,
    thread: general.id,
    content: `signed by my own key ${senderSeq}`,
    ts: ctx.now(),
    sender_seq: senderSeq,
    sender_epoch: Buffer.alloc(16, 5),
    ...overrides,
  });
  return handedIn(fields, ctx.keys.participant(signWith.participant.id).privateKey);
}

/** An envelope as a linked hub hands it in, decoded once (peer-intake.ts): `signer`'s, with `overrides` (a request, a response). */
export function decodedEnvelope(hub: TestHub, signer: Actor, overrides: Partial<SignedEventFields> = {}): DecodedEnvelope {
  const { envelope, sig } = signedEnvelope(hub, signer, overrides);
  const bytes = Buffer.from(envelope, 'base64url');
  return new DecodedEnvelope(bytes, decodeEventTuple(bytes), Buffer.from(sig, 'base64url'), undefined);
}

/** A thread's signed export as `reader` gets it, checked offline as `parley verify` does; the lines too, to look into. */
export async function verifiedExport(reader: Actor, thread: string): Promise<{ report: VerifyReport; lines: Array<Record<string, unknown>> }> {
  const exported = await reader.export({ thread, format: 'signed' });
  let text = '';
  for await (const chunk of exported.chunks) text += chunk;
  const verifier = new ExportVerifier();
  const lines = text.trimEnd().split('\n');
  for (const line of lines) verifier.line(line);
  return { report: verifier.finish(), lines: lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
