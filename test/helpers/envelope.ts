import type { Actor } from '../../src/hub/actor.js';
import { eventSigningBytes, signEvent, type SignedEventFields } from '../../src/trust/envelope.js';
import { ExportVerifier, type VerifyReport } from '../../src/trust/signed-export.js';
import type { TestHub } from './hub.js';

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
  const fields: SignedEventFields = {
    id: ctx.newId(),
    from: ctx.keys.participant(signer.participant.id).raw,
    thread: general.id,
    to: null,
    kind: 'message',
    content: `signed by my own key ${senderSeq}`,
    meta: null,
    ts: ctx.now(),
    ttl_secs: 300,
    sender_seq: senderSeq,
    sender_epoch: Buffer.alloc(16, 5),
    ...overrides,
  };
  const sig = signEvent(ctx.keys.participant(signWith.participant.id).privateKey, fields);
  return { envelope: Buffer.from(eventSigningBytes(fields)).toString('base64url'), sig: sig.toString('base64url') };
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
