import type { ParticipantApi } from '../hub/index.js';
import { localSocketPath } from '../home/local-socket-path.js';
import type { SocketCall } from './socket-frames.js';
import { SocketLink } from './socket-link.js';

type Api = ParticipantApi;
type Answer<K extends SocketCall> = Awaited<ReturnType<Api[K]>>;

/**
 * A participant of the hub running on this machine's home, reached through
 * the hub's local socket (see socket-link.ts): the same interface as
 * RestParticipant, without an HTTP request per call. `parley mcp` uses it
 * when the hub it means to reach listens on the home's socket.
 */
export class SocketParticipant implements ParticipantApi {
  readonly #link: SocketLink;
  readonly #token: string;

  constructor(link: SocketLink, token: string) {
    this.#link = link;
    this.#token = token;
  }

  /** The link to the home's hub when it listens on the home's socket and serves at `url`; undefined otherwise (use REST). */
  static link(home: string, url: string): Promise<SocketLink | undefined> {
    return SocketLink.open(localSocketPath(home), url);
  }

  get url(): string {
    return this.#link.url;
  }

  #call<K extends SocketCall>(call: K, ...args: unknown[]): Promise<Answer<K>> {
    return this.#link.call(this.#token, call, args);
  }

  /** Who this is, and what the hub allows it (`hub.chat`: whether it has chat there), as REST's GET /whoami answers. */
  whoami = (): Promise<Answer<'whoami'> & { hub?: { chat: boolean } }> => this.#call('whoami');
  updateProfile: Api['updateProfile'] = (patch) => this.#call('updateProfile', patch);
  participants: Api['participants'] = () => this.#call('participants');

  post: Api['post'] = (input) => this.#call('post', input);
  ingest: Api['ingest'] = (input) => this.#call('ingest', input);
  dm: Api['dm'] = (input) => this.#call('dm', input);
  threads: Api['threads'] = () => this.#call('threads');
  createChannel: Api['createChannel'] = (input) => this.#call('createChannel', input);
  renameThread: Api['renameThread'] = (input) => this.#call('renameThread', input);
  openSide: Api['openSide'] = (input) => this.#call('openSide', input);
  closeSide: Api['closeSide'] = (input) => this.#call('closeSide', input);
  subscribe: Api['subscribe'] = (thread) => this.#call('subscribe', thread);
  unsubscribe: Api['unsubscribe'] = (thread) => this.#call('unsubscribe', thread);
  mute: Api['mute'] = (thread) => this.#call('mute', thread);

  readNew: Api['readNew'] = (input) => this.#call('readNew', input);
  history: Api['history'] = (input) => this.#call('history', input);
  search: Api['search'] = (input) => this.#call('search', input);

  inbox: Api['inbox'] = (input = {}) => this.#call('inbox', input);
  peek: Api['peek'] = (input = {}) => this.#call('peek', input);
  wait: Api['wait'] = (input = {}, signal) => this.#link.call(this.#token, 'wait', [input], signal);
  ack: Api['ack'] = (input) => this.#call('ack', input);
  inject: Api['inject'] = (input = {}) => this.#call('inject', input);
  sentDeliveries: Api['sentDeliveries'] = (input = {}) => this.#call('sentDeliveries', input);

  control: Api['control'] = (thread, control) => this.#call('control', thread, control);

  request: Api['request'] = (input) => this.#call('request', input);
  respond: Api['respond'] = (input) => this.#call('respond', input);
  openRequests: Api['openRequests'] = () => this.#call('openRequests');

  setPresence: Api['setPresence'] = (input) => this.#call('setPresence', input);
  who: Api['who'] = () => this.#call('who');

  meetings: Api['meetings'] = () => this.#call('meetings');
  meetingJoin: Api['meetingJoin'] = (meeting) => this.#call('meetingJoin', meeting);
  meetingLeave: Api['meetingLeave'] = (meeting) => this.#call('meetingLeave', meeting);
  meetingSay: Api['meetingSay'] = (meeting, text) => this.#call('meetingSay', meeting, text);
  meetingHear: Api['meetingHear'] = (input) => this.#call('meetingHear', input);
  meetingWho: Api['meetingWho'] = (meeting) => this.#call('meetingWho', meeting);
  meetingStatus: Api['meetingStatus'] = (meeting, lastHeard) => (lastHeard === undefined ? this.#call('meetingStatus', meeting) : this.#call('meetingStatus', meeting, lastHeard));

  /** Resolves once every call made so far has been answered. */
  settle(): Promise<void> {
    return this.#link.settle();
  }

  /** Keeps this participant present on the hub until closed (see SocketLink.hold). */
  connect(): Promise<{ close(): void }> {
    return this.#link.hold(this.#token);
  }

  /** The link is shared by whoever made it: closing a participant leaves it open. */
  close(): void {
    // Nothing of its own to release: calls in flight are the link's (see settle).
  }
}
