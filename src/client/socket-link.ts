import net from 'node:net';
import { LOCAL_SOCKET_HELLO_TIMEOUT_MS, LOCAL_SOCKET_RETRY_FIRST_MS, LOCAL_SOCKET_RETRY_MAX_MS } from '../config/defaults.js';
import { ParleyError, parleyErrorFromBody } from '../errors/parley-error.js';
import { CONNECT, HELLO, LineReader, frameLine, type CallFrame, type HelloAnswer } from './socket-frames.js';
import { InFlight } from '../util/in-flight.js';

/** The longest answer a client reads (the hub answers within its own server.maxBodyBytes, whose ceiling this is). */
const MAX_ANSWER_CHARS = 256 * 1024 * 1024;

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** A connect's: the hub ended it, or the socket closed. */
  ended?: () => void;
}

/**
 * A client's one connection to the hub's local socket (see socket-frames.ts):
 * calls written as frames and answered by id, any number in flight. Opened
 * only after the hub behind it said, in hello, that it serves at the address
 * the client means; should the hub go, the next call opens it again. A hub
 * error comes back as the ParleyError the hub raised; no hub is HUB_CLOSED.
 */
export class SocketLink {
  readonly #file: string;
  readonly #url: string;
  #socket: net.Socket | undefined;
  #opening: Promise<boolean> | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #inflight = new InFlight();
  #closed = false;

  private constructor(file: string, url: string) {
    this.#file = file;
    this.#url = url;
  }

  /** The link to the socket at `file` when the hub there serves at `url`; undefined when none answers there or another hub does. */
  static async open(file: string, url: string): Promise<SocketLink | undefined> {
    const link = new SocketLink(file, url);
    return (await link.#open()) ? link : undefined;
  }

  get url(): string {
    return this.#url;
  }

  /** A participant call, authenticated by `token`; `signal` cancels it (the hub ends a wait then). */
  call<T>(token: string, call: string, args: unknown[], signal?: AbortSignal): Promise<T> {
    return this.#inflight.track(this.#call<T>(token, call, args, signal));
  }

  /** Resolves once every call made so far has been answered (or failed). */
  settle(): Promise<void> {
    return this.#inflight.settled();
  }

  /**
   * Holds the participant present on the hub from when this resolves until
   * the returned close (or this link's); opened again after the hub went away
   * and came back, as a REST client's connection is. Rejects with the hub's refusal.
   */
  async hold(token: string): Promise<{ close(): void }> {
    let closed = false;
    let current: number | undefined;
    const open = async (): Promise<void> => {
      const { id, ended } = await this.#connect(token);
      current = id;
      ended.then(() => reopen(), () => reopen());
    };
    let delay = LOCAL_SOCKET_RETRY_FIRST_MS;
    const reopen = (): void => {
      current = undefined;
      if (closed || this.#closed) return;
      const timer = setTimeout(() => {
        open().then(
          () => (delay = LOCAL_SOCKET_RETRY_FIRST_MS),
          () => {
            delay = Math.min(delay * 2, LOCAL_SOCKET_RETRY_MAX_MS);
            reopen();
          },
        );
      }, delay);
      timer.unref();
    };
    await open();
    return {
      close: () => {
        closed = true;
        if (current !== undefined) this.#cancel(current);
      },
    };
  }

  close(): void {
    this.#closed = true;
    this.#socket?.end();
  }

  async #connect(token: string): Promise<{ id: number; ended: Promise<void> }> {
    await this.#ready();
    const id = this.#nextId++;
    let ended!: () => void;
    const endedPromise = new Promise<void>((resolve) => (ended = resolve));
    await new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, ended });
      this.#write({ id, token, call: CONNECT });
    });
    return { id, ended: endedPromise };
  }

  async #call<T>(token: string, call: string, args: unknown[], signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw abortError(signal);
    await this.#ready();
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        this.#pending.delete(id);
        this.#cancel(id);
        reject(abortError(signal!));
      };
      const settle = (): void => signal?.removeEventListener('abort', onAbort);
      this.#pending.set(id, {
        resolve: (value) => {
          settle();
          resolve(value as T);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#write({ id, token, call, ...(args.length ? { args } : {}) });
    });
  }

  #cancel(id: number): void {
    if (this.#socket?.writable) this.#socket.write(frameLine({ cancel: id }));
  }

  #write(frame: CallFrame): void {
    this.#socket!.write(frameLine(frame));
  }

  /** The socket open and said hello; HUB_CLOSED when it cannot be opened again. */
  async #ready(): Promise<void> {
    if (this.#socket) return;
    if (this.#closed || !(await this.#open())) throw new ParleyError('HUB_CLOSED', `No hub answers at ${this.#url} (its local socket ${this.#file} is closed); start one with "parley serve".`);
  }

  /** Opens the socket and asks hello; false when nothing answers or the hub there is not the one at the client's address. */
  #open(): Promise<boolean> {
    this.#opening ??= this.#tryOpen().finally(() => (this.#opening = undefined));
    return this.#opening;
  }

  async #tryOpen(): Promise<boolean> {
    const socket = await new Promise<net.Socket | undefined>((resolve) => {
      const attempt = net.connect(this.#file);
      attempt.once('connect', () => {
        attempt.removeAllListeners('error');
        resolve(attempt);
      });
      attempt.once('error', () => resolve(undefined));
    });
    if (!socket) return false;
    socket.setEncoding('utf8');
    const reader = new LineReader((line) => this.#answer(line), MAX_ANSWER_CHARS, () => socket.destroy());
    socket.on('data', (chunk: string) => reader.push(chunk));
    socket.on('error', () => socket.destroy());
    const id = this.#nextId++;
    // A refused hello (or the socket closing first) is no hello: the client uses REST.
    const hello = new Promise<unknown>((resolve) => this.#pending.set(id, { resolve, reject: () => resolve(undefined) }));
    socket.once('close', () => (this.#socket === socket ? this.#lost(socket) : this.#pending.get(id)?.reject(undefined)));
    // Nothing but hello is written before the hub has said it is the one at the client's address: no token goes to another.
    socket.write(frameLine({ id, call: HELLO }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), LOCAL_SOCKET_HELLO_TIMEOUT_MS)));
    const answer = (await Promise.race([hello, timeout])) as Partial<HelloAnswer> | undefined;
    clearTimeout(timer);
    this.#pending.delete(id);
    if (answer?.hub === 'parley' && typeof answer.url === 'string' && sameOrigin(answer.url, this.#url) && !socket.destroyed) {
      this.#socket = socket;
      return true;
    }
    socket.destroy();
    return false;
  }

  #answer(line: string): void {
    let frame: { id?: unknown; ok?: unknown; error?: unknown; ended?: unknown };
    try {
      frame = JSON.parse(line) as typeof frame;
    } catch {
      // Not a frame of the hub's: nothing waits on it.
      return;
    }
    const pending = typeof frame.id === 'number' ? this.#pending.get(frame.id) : undefined;
    if (!pending) return;
    if (frame.ended === true) {
      this.#pending.delete(frame.id as number);
      pending.ended?.();
    } else if (frame.error !== undefined) {
      this.#pending.delete(frame.id as number);
      pending.reject(parleyErrorFromBody({ error: frame.error }, 0));
    } else if (!pending.ended) {
      this.#pending.delete(frame.id as number);
      pending.resolve(frame.ok);
    } else {
      // A connect stays pending until it ends.
      pending.resolve(frame.ok);
    }
  }

  /** The socket closed: every call still waiting fails as a REST call to a hub that went away does; connects end. */
  #lost(socket: net.Socket): void {
    if (this.#socket !== socket) return;
    this.#socket = undefined;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    const gone = new ParleyError('HUB_CLOSED', `No hub answers at ${this.#url} (its local socket closed); start one with "parley serve".`);
    for (const entry of pending) {
      entry.reject(gone);
      entry.ended?.();
    }
  }
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}
