// The one gate into the hub. Every entry (entries.ts) passes it, whoever
// knocks: a participant through the library, REST, MCP, the CLI or a hook, or
// an envelope signed elsewhere, handed in by its author or by a linked hub.

import { ParleyError } from '../errors/parley-error.js';
import type { Caller, ThreadRecord } from './records.js';
import { resolveFor } from './caller.js';
import { assertMayRead, assertMayWrite } from './channel-access.js';
import { assertChatAllowed } from './chat-exclusion.js';
import type { HubContext } from './context.js';
import type { AnyEntry, InputOf, ThreadField } from './entries.js';
import { DecodedEnvelope, envelopeCaller, type OpenedEnvelope } from './envelope-opening.js';
import { rosterViewOf } from './roster-book.js';
import type { Held } from './held.js';
import { holdPresence } from './presence-hold.js';

/** Who knocks: a participant, by the ids its credential names; or whoever signed the envelope handed in. */
export type Principal = { participantId: string; sessionId: string } | 'signer';

/** What the gate hands an operation: who calls, its input (parsed when the entry parses it), and what the input named, resolved and checked. */
export interface Admitted<I = unknown, T extends ThreadRecord | undefined = ThreadRecord | undefined, V extends OpenedEnvelope | undefined = OpenedEnvelope | undefined> {
  caller: Caller;
  input: I;
  /** The thread the entry names, resolved once (after an await, see current()). */
  thread: T;
  /** The envelope the entry takes, opened (its signature verified). */
  envelope: V;
  /** Whether a write was taken from the caller's rate limit for it. */
  charged?: boolean;
}

type ThreadOf<E> = E extends { thread: { optional: true } } ? ThreadRecord | undefined : E extends { thread: ThreadField } ? ThreadRecord : undefined;
type EnvelopeOf<E> = E extends { envelope: string } ? OpenedEnvelope : undefined;

/** What the gate hands the operation of entry E (its thread is there when E names one it does not leave optional). */
export type AdmittedBy<E> = Admitted<InputOf<E>, ThreadOf<E>, EnvelopeOf<E>>;

function closingError(): ParleyError {
  return new ParleyError('HUB_CLOSED', 'The hub is shutting down; nothing was done. Retry against the running hub.');
}

/** What the gate uses of the hub: these components only. */
export type GateContext = Pick<HubContext, 'config' | 'state' | 'access' | 'lifecycle' | 'rateLimiter' | 'reads' | 'presence' | 'bus' | 'meetings' | 'envelopes' | 'rosters'>;

/**
 * Admits or refuses a call in one order, each check once: the hub closing;
 * who calls (its records still exist; an envelope's signature); chat, for
 * chat entries; its access (the permission table); the input, parsed; the
 * thread it names, resolved once and checked against the channel's policy;
 * a write from its rate limit. Admitted, it runs in the caller's read turn
 * (heavy reads), tracked in flight so that closing waits for it (waits and
 * streams instead end when the hub closes), with presence touched or held.
 */
export class Gate {
  readonly #ctx: GateContext;

  constructor(ctx: GateContext) {
    this.#ctx = ctx;
  }

  /** Runs a call of `entry`: a refusal is a rejected promise, and nothing was done. */
  call<E extends AnyEntry, R>(entry: E, who: Principal, raw: unknown, operation: (admitted: AdmittedBy<E>) => R | Promise<R>): Promise<R> {
    let admitted: AdmittedBy<E>;
    try {
      admitted = this.#admit(entry, who, raw);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const ctx = this.#ctx;
    const { caller } = admitted;
    const run = entry.heavy ? () => ctx.reads.run(caller.participant.id, () => operation(admitted)) : () => operation(admitted);
    if (entry.presence === 'touch') ctx.presence.touch(caller.session.id, caller.participant);
    const release = entry.presence === 'touch' || entry.presence === 'none' ? undefined : holdPresence(ctx, caller, entry.presence);
    let result = Promise.resolve().then(run);
    if (release) result = result.finally(release);
    // The write taken at the gate is given back when the operation refuses: only what is done counts.
    if (admitted.charged) {
      result = result.catch((error: unknown) => {
        ctx.rateLimiter.refund(caller.participant.id);
        throw error;
      });
    }
    return entry.inflight === 'track' ? ctx.lifecycle.track(result) : result;
  }

  /**
   * Opens a stream or connection of `entry` now (a refusal is thrown): the
   * caller is held present from when it is open until it ends.
   */
  open<E extends AnyEntry, R>(entry: E, who: Principal, raw: unknown, operation: (admitted: AdmittedBy<E>) => Held<R>): R {
    const admitted = this.#admit(entry, who, raw);
    const held = operation(admitted);
    // Held once open, so the stream itself carries its participant coming online.
    if (entry.presence !== 'touch' && entry.presence !== 'none' && !held.ending.ended) held.ending.onEnd(holdPresence(this.#ctx, admitted.caller, entry.presence));
    if (entry.presence === 'touch') this.#ctx.presence.touch(admitted.caller.session.id, admitted.caller.participant);
    return held.value;
  }

  /** Admits without running anything: refuses (thrown) what `entry` would refuse. */
  check(entry: AnyEntry, who: Principal, raw?: unknown): Caller {
    return this.#admit(entry, who, raw).caller;
  }

  #admit<E extends AnyEntry>(entry: E, who: Principal, raw: unknown): AdmittedBy<E> {
    const ctx = this.#ctx;
    if (ctx.lifecycle.closing) throw closingError();
    let caller: Caller;
    let envelope: OpenedEnvelope | undefined;
    if (entry.envelope) ({ caller, envelope } = envelopeCaller(ctx, raw, entry.envelope, who === 'signer' ? undefined : this.#identify(who)));
    else caller = this.#identify(who);
    // Chat a caller does not have is refused as such (CHAT_DISABLED), whatever its access: for it, chat does not exist.
    if (typeof entry.chat === 'function' ? entry.chat(raw) : entry.chat) assertChatAllowed(ctx.config, caller);
    // History a linked hub served is judged by the roster in force when it was written: an author removed since wrote it as a member.
    const asWritten = envelope && raw instanceof DecodedEnvelope && raw.asWritten ? ctx.rosters.inForceAt(envelope.fields.ts) : undefined;
    if (entry.action !== 'open') ctx.access.require(caller.participant, entry.action, entry.label?.(raw), asWritten && rosterViewOf(asWritten));
    const input = (entry.input && !entry.envelope ? entry.input(raw) : raw) as InputOf<E>;
    const thread = entry.thread ? this.#target(entry.thread, caller, input, envelope) : undefined;
    const charged = typeof entry.rate === 'function' ? entry.rate(ctx, caller, input) : entry.rate;
    if (charged) ctx.rateLimiter.take(caller.participant.id, caller.participant.handle);
    return { caller, input, thread, envelope, charged } as AdmittedBy<E>;
  }

  #identify(who: Principal): Caller {
    if (who === 'signer') throw new ParleyError('INTERNAL', 'Only an envelope names its own signer.');
    return callerOf(this.#ctx, who);
  }

  /** The thread the input (or the envelope) names: resolved once, then checked against its channel's policy. */
  #target(spec: ThreadField, caller: Caller, input: unknown, envelope: OpenedEnvelope | undefined): ThreadRecord | undefined {
    const ctx = this.#ctx;
    const ref = envelope ? envelope.thread : (input as Record<string, unknown> | undefined)?.[spec.field];
    if (ref === undefined && spec.optional) return undefined;
    try {
      const thread = resolveFor(ctx, caller, ref as string, spec.field);
      // The signature is over the thread's id: a thread named any other way would be stored under an id that was not signed.
      if (envelope && thread.id !== ref) throw new ParleyError('NOT_FOUND', `Envelope ${envelope.fields.id}: no thread with id ${envelope.thread} in @${caller.participant.handle}'s session.`, { field: spec.field });
      if (spec.need === 'read') assertMayRead(ctx, caller, thread, spec.field);
      if (spec.need === 'write') assertMayWrite(ctx, caller, thread, spec.field);
      return thread;
    } catch (error) {
      // An envelope refused for the thread it names is counted as dropped.
      if (envelope && error instanceof ParleyError) throw ctx.envelopes.drop('forbidden', error);
      throw error;
    }
  }
}

/** A participant's records by the ids its credential names, looked up on every call: they are replaced when the hub reloads its state. */
export function callerOf(ctx: Pick<HubContext, 'state'>, who: { participantId: string; sessionId: string }): Caller {
  const participant = ctx.state.participants.get(who.participantId);
  const session = ctx.state.sessions.get(who.sessionId);
  if (!participant || !session) throw new ParleyError('NOT_FOUND', 'This participant or session no longer exists on the hub; join again.');
  return { participant, session };
}

/** The thread's record as it is now (a reload replaces records), or NOT_FOUND when it went away. */
export function current(ctx: Pick<HubContext, 'state'>, thread: ThreadRecord, field = 'thread'): ThreadRecord {
  const now = ctx.state.threads.get(thread.id);
  if (!now) throw new ParleyError('NOT_FOUND', `Thread "${thread.name}" no longer exists.`, { field });
  return now;
}
