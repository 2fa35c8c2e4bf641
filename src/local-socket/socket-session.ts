import type { Socket } from 'node:net';
import { CONNECT, HELLO, LineReader, SOCKET_CALLS, frameLine, type AnswerFrame, type HelloAnswer, type SocketCall } from '../client/socket-frames.js';
import { ParleyError, parseInput, toParleyError } from '../errors/parley-error.js';
import { chatOpenFor, wakeOnFor, type Actor, type Hub } from '../hub/index.js';
import { REGISTERED_PROFILE_FIELDS, SelfProfilePatchSchema } from '../schema/participant.js';
import { inBackground } from '../util/background.js';
import type { Logger } from '../util/logger.js';

/** The same words as a REST request with a token the hub does not know. */
const UNKNOWN_TOKEN = 'Unknown or revoked token: get a new one with "parley join" or "parley token rotate".';

export interface SessionSettings {
  hub: Hub;
  hello: HelloAnswer;
  logger: Logger;
  maxFrameChars: number;
}

/**
 * One client's connection to the local socket: its frames read, each call
 * authenticated by its own token (as a REST request is) and made through the
 * participant's Actor, so every call passes the hub's gate as on every other
 * surface. Waits and connects end when the client cancels them, the socket
 * closes, or their token is revoked.
 */
export class SocketSession {
  readonly #socket: Socket;
  readonly #settings: SessionSettings;
  readonly #reader: LineReader;
  /** Calls not yet answered (waits included), for a shutdown that lets them land. */
  #inflight = 0;
  /** What a cancel frame or the socket's close ends: a wait's abort, a connect's close. */
  readonly #ending = new Map<number, () => void>();
  #closed = false;
  #onIdle: (() => void) | undefined;

  constructor(socket: Socket, settings: SessionSettings) {
    this.#socket = socket;
    this.#settings = settings;
    this.#reader = new LineReader((line) => this.#frame(line), settings.maxFrameChars, () => {
      this.#send({ id: null, error: new ParleyError('INVALID_INPUT', `Invalid frame: longer than ${settings.maxFrameChars} characters (server.maxBodyBytes). Send smaller calls.`, { field: 'frame' }).toJSON() });
      socket.end();
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.#reader.push(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.#close());
  }

  /** Ends the session once its calls in flight are answered (a shutdown). */
  drain(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#onIdle = () => this.#socket.end();
      if (this.#inflight === 0) this.#socket.end();
    });
  }

  destroy(): void {
    this.#socket.destroy();
  }

  #close(): void {
    this.#closed = true;
    this.#reader.stop();
    for (const end of this.#ending.values()) end();
    this.#ending.clear();
  }

  #send(frame: AnswerFrame): void {
    if (!this.#closed && this.#socket.writable) this.#socket.write(frameLine(frame));
  }

  #frame(line: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch {
      this.#send({ id: null, error: invalid('frame', 'Invalid frame: it is not JSON. Send one JSON object per line.') });
      return;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      this.#send({ id: null, error: invalid('frame', 'Invalid frame: it is not a JSON object. Send {"id":N,"call":NAME,"token":T,"args":[…]}.') });
      return;
    }
    const { id, call, token, args, cancel } = frame as Record<string, unknown>;
    if (cancel !== undefined) {
      if (typeof cancel === 'number') this.#end(cancel);
      return;
    }
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
      this.#send({ id: null, error: invalid('id', 'Invalid id: a call needs a whole number "id", which its answer carries.') });
      return;
    }
    if (call === HELLO) {
      this.#send({ id, ok: this.#settings.hello });
      return;
    }
    if (typeof token !== 'string' || token.length === 0) {
      this.#send({ id, error: new ParleyError('UNAUTHORIZED', 'Authentication required: every call carries the participant\'s "token" (from "parley join").').toJSON() });
      return;
    }
    if (call === CONNECT) {
      this.#connect(id, token);
      return;
    }
    if (typeof call !== 'string' || !Object.hasOwn(SOCKET_CALLS, call)) {
      this.#send({ id, error: invalid('call', `Invalid call: ${JSON.stringify(call)} is not a participant call; use one of ${Object.keys(SOCKET_CALLS).join(', ')}.`) });
      return;
    }
    const most = SOCKET_CALLS[call as SocketCall];
    if (args !== undefined && (!Array.isArray(args) || args.length > most)) {
      this.#send({ id, error: invalid('args', `Invalid args: ${call} takes an array of at most ${most} argument${most === 1 ? '' : 's'}.`) });
      return;
    }
    this.#inflight++;
    this.#run(call as SocketCall, token, (args as unknown[] | undefined) ?? [], id).then(
      (value) => this.#answered({ id, ok: value ?? null }),
      (error: unknown) => {
        const parleyError = toParleyError(error);
        if (parleyError.code === 'INTERNAL') this.#settings.logger.error('local socket call failed', { call, error: parleyError.cause ?? parleyError });
        this.#answered({ id, error: parleyError.toJSON() });
      },
    );
  }

  #answered(frame: AnswerFrame): void {
    this.#send(frame);
    this.#inflight--;
    if (this.#inflight === 0) this.#onIdle?.();
  }

  #actor(token: string): Actor {
    const actor = this.#settings.hub.authenticate(token);
    if (!actor) throw new ParleyError('UNAUTHORIZED', UNKNOWN_TOKEN);
    return actor;
  }

  async #run(call: SocketCall, token: string, args: unknown[], id: number): Promise<unknown> {
    const actor = this.#actor(token);
    if (call === 'whoami') return this.#whoami(actor);
    if (call === 'wait') return this.#wait(actor, token, args[0], id);
    if (call === 'updateProfile') {
      // As on REST: kind and roles go to the library, which says how they are set; any other bad field is named as sent.
      const patch = args[0];
      const registered = typeof patch === 'object' && patch !== null && REGISTERED_PROFILE_FIELDS.some((key) => key in patch);
      return actor.updateProfile(registered ? (patch as never) : parseInput(SelfProfilePatchSchema, patch));
    }
    // The Actor parses and checks every argument (its gate, then the operation), as it does for REST and in process.
    return (actor[call] as (...values: unknown[]) => Promise<unknown>)(...args);
  }

  /** As REST's GET /whoami: who, and what this hub allows the caller (chat, message limits), and the newest seq. */
  async #whoami(actor: Actor): Promise<unknown> {
    const config = this.#settings.hub.config;
    const head = actor.head;
    const participant = actor.participant;
    const { access, trust } = await actor.whoami();
    const limits = { maxMessageChars: config.chat.limits.maxMessageChars, maxInputChars: config.chat.limits.maxInputChars };
    return { participant, session: actor.session, wakeOn: wakeOnFor(config, participant.profile), access, trust, hub: { chat: chatOpenFor(config, participant.profile), ...limits }, head };
  }

  /** A wait ends when the client cancels it, the socket closes, or its token is revoked (then its answer is that refusal). */
  async #wait(actor: Actor, token: string, input: unknown, id: number): Promise<unknown> {
    const revoked = this.#settings.hub.credential(token).revoked;
    const ended = new AbortController();
    const end = (): void => ended.abort();
    this.#ending.set(id, end);
    revoked.addEventListener('abort', end, { once: true });
    if (revoked.aborted || this.#closed) end();
    try {
      const result = await actor.wait(input as never, ended.signal);
      if (revoked.aborted) throw new ParleyError('UNAUTHORIZED', 'The token this wait was made with has been revoked; sign in or get a new token.');
      return result;
    } finally {
      this.#ending.delete(id);
      revoked.removeEventListener('abort', end);
    }
  }

  /** Holds the caller present until the socket closes, the client cancels it, its token is revoked or the hub shuts down. */
  #connect(id: number, token: string): void {
    let connection: ReturnType<Actor['connect']>;
    try {
      connection = this.#actor(token).connect();
    } catch (error) {
      this.#send({ id, error: toParleyError(error).toJSON() });
      return;
    }
    const revoked = this.#settings.hub.credential(token).revoked;
    const close = (): void => connection.close();
    revoked.addEventListener('abort', close, { once: true });
    this.#ending.set(id, close);
    const ended = connection.ended.then(() => {
      revoked.removeEventListener('abort', close);
      this.#ending.delete(id);
      this.#send({ id, ended: true });
    });
    inBackground(ended, this.#settings.logger, 'ending a local socket connection');
    this.#send({ id, ok: {} });
    if (revoked.aborted || this.#closed) close();
  }

  #end(id: number): void {
    const end = this.#ending.get(id);
    this.#ending.delete(id);
    end?.();
  }
}

function invalid(field: string, message: string): ReturnType<ParleyError['toJSON']> {
  return new ParleyError('INVALID_INPUT', message, { field }).toJSON();
}
