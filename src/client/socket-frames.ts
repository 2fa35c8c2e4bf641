import type { ParticipantApi } from '../hub/index.js';
import type { ErrorBody } from '../errors/parley-error.js';

/**
 * The hub's local socket speaks newline-delimited JSON, one frame a line,
 * calls answered by id in any order (a wait does not hold up the calls
 * behind it). What a client sends:
 *
 *   {"id":1,"call":"hello"}                              which hub this is
 *   {"id":2,"token":T,"call":"post","args":[{…}]}        a participant call
 *   {"id":3,"token":T,"call":"connect"}                  present until the socket closes
 *   {"cancel":2}                                         ends call 2 (a wait) or connect 2
 *
 * and what the hub answers: `{"id":2,"ok":VALUE}`, `{"id":2,"error":{code,
 * message,…}}` (the REST error body), `{"id":3,"ended":true}` when the hub ends
 * a connect; a frame it cannot read is answered with `"id":null`. Every call
 * carries the participant's token and is authenticated on its own, as a REST
 * request is, so revocation and expiry apply at once.
 */

/** The participant calls the socket carries, with how many arguments each takes at most: every method of ParticipantApi, no more and no fewer. */
export const SOCKET_CALLS = {
  whoami: 0,
  updateProfile: 1,
  participants: 0,
  post: 1,
  ingest: 1,
  dm: 1,
  threads: 0,
  createChannel: 1,
  renameThread: 1,
  openSide: 1,
  closeSide: 1,
  subscribe: 1,
  unsubscribe: 1,
  mute: 1,
  readNew: 1,
  history: 1,
  search: 1,
  inbox: 1,
  peek: 1,
  wait: 1,
  ack: 1,
  inject: 1,
  sentDeliveries: 1,
  control: 2,
  request: 1,
  respond: 1,
  openRequests: 0,
  setPresence: 1,
  who: 0,
  meetings: 0,
  meetingJoin: 1,
  meetingLeave: 1,
  meetingSay: 2,
  meetingHear: 1,
  meetingWho: 1,
  meetingStatus: 2,
} as const satisfies Record<keyof ParticipantApi, number>;

export type SocketCall = keyof typeof SOCKET_CALLS;

/** Says which hub listens: the socket's first call, before any token is sent. */
export const HELLO = 'hello';
/** Holds the caller present for as long as the socket (or until a cancel). */
export const CONNECT = 'connect';

/** What the hub says of itself in answer to hello. */
export interface HelloAnswer {
  hub: 'parley';
  /** The hub's HTTP address: a client uses the socket only for the hub it means to reach. */
  url: string;
  version: string;
}

export interface CallFrame {
  id: number;
  call: string;
  token?: string;
  args?: unknown[];
}

export interface CancelFrame {
  cancel: number;
}

export type AnswerFrame = { id: number | null; ok: unknown } | { id: number | null; error: ErrorBody } | { id: number; ended: true };

/** One frame as its line. */
export function frameLine(frame: CallFrame | CancelFrame | AnswerFrame): string {
  return `${JSON.stringify(frame)}\n`;
}

/**
 * Cuts a stream of text into lines, keeping a partial last line for the next
 * chunk. Past `maxLineChars` without a line's end, `onTooLong` is called and
 * nothing more is read: the stream cannot be told apart into frames again.
 */
export class LineReader {
  #pending = '';
  #stopped = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineChars: number,
    private readonly onTooLong: () => void,
  ) {}

  push(chunk: string): void {
    if (this.#stopped) return;
    let text = this.#pending + chunk;
    let end = text.indexOf('\n');
    while (end >= 0) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      if (line.length > 0) this.onLine(line);
      if (this.#stopped) return;
      end = text.indexOf('\n');
    }
    if (text.length > this.maxLineChars) {
      this.#stopped = true;
      this.#pending = '';
      this.onTooLong();
      return;
    }
    this.#pending = text;
  }

  stop(): void {
    this.#stopped = true;
    this.#pending = '';
  }
}
