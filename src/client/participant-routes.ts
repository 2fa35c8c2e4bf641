import type { ParticipantApi, ThreadInfo } from '../hub/index.js';
import type { ControlInput } from '../schema/control.js';
import type { InboxInput, InjectInput, MeetingHearInput, WaitInput } from '../schema/inputs.js';
import type { ThreadDetail } from '../schema/views.js';
import type { JsonTransport } from './json-transport.js';

/**
 * Every operation of one participant as a request to the hub's REST API,
 * over any JsonTransport: the same interface as the in-process `Actor`, one
 * request per call, and the one place that knows the participant routes.
 * `RestParticipant` runs it over a pool of kept connections (`parley mcp`,
 * the middleware, the agent loop); the CLI's one-shot commands over a single
 * node:http request.
 */
type Api = ParticipantApi;

/**
 * An input whose numbers may also come as typed on a command line: they go
 * into the query as they are, so that the hub's refusal quotes what was typed.
 */
export type AsTyped<T> = { [K in keyof T]: T[K] extends number | undefined ? T[K] | string : T[K] };

const enc = encodeURIComponent;

function query(params: Record<string, string | number | boolean | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${enc(String(value))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export class ParticipantRoutes implements ParticipantApi {
  constructor(protected readonly http: JsonTransport) {}

  get url(): string {
    return this.http.url;
  }

  /** Who this is, and what the hub allows it (`hub.chat`: whether it has chat there). */
  whoami = (): Promise<Awaited<ReturnType<Api['whoami']>> & { hub?: { chat: boolean } }> => this.http.request('GET', '/whoami');
  updateProfile: Api['updateProfile'] = async (patch) =>
    (await this.http.request<{ participant: Awaited<ReturnType<Api['updateProfile']>> }>('PATCH', '/profile', patch)).participant;
  participants: Api['participants'] = async () =>
    (await this.http.request<{ participants: Awaited<ReturnType<Api['participants']>> }>('GET', '/participants')).participants;

  post: Api['post'] = ({ thread, ...body }) => this.http.request('POST', `/threads/${enc(thread)}/messages`, body);
  ingest: Api['ingest'] = (input) => this.http.request('POST', '/envelopes', input);
  dm: Api['dm'] = (input) => this.http.request('POST', '/dm', input);
  threads: Api['threads'] = async () => (await this.threadList()).threads;
  /** The threads, and `head`: the newest seq when the list was made (a stream from there misses nothing after it). */
  threadList = (): Promise<{ threads: ThreadInfo[]; head: number }> => this.http.request('GET', '/threads');
  createChannel: Api['createChannel'] = (input) => this.http.request('POST', '/threads', input);
  renameThread: Api['renameThread'] = ({ thread, ...body }) => this.http.request('POST', `/threads/${enc(thread)}/rename`, body);
  openSide: Api['openSide'] = ({ parent, ...body }) => this.http.request('POST', `/threads/${enc(parent)}/side`, body);
  closeSide: Api['closeSide'] = ({ thread, ...body }) => this.http.request('POST', `/threads/${enc(thread)}/close`, body);
  subscribe: Api['subscribe'] = (thread) => this.#subscription(thread, 'subscribed');
  unsubscribe: Api['unsubscribe'] = (thread) => this.#subscription(thread, 'unsubscribed');
  mute: Api['mute'] = (thread) => this.#subscription(thread, 'muted');

  /** A thread's steering state and members (what the page's steering panel shows). */
  threadDetail = (thread: string): Promise<ThreadDetail> => this.http.request('GET', `/threads/${enc(thread)}`);
  /** A thread as a document: `format` markdown, jsonl or signed (the bytes "parley verify" reads). */
  exportThread = (thread: string, format: string): Promise<{ body: string }> => this.http.request('GET', `/threads/${enc(thread)}/export${query({ format })}`);

  readNew = ({ thread, limit }: AsTyped<Parameters<Api['readNew']>[0]>): ReturnType<Api['readNew']> => this.http.request('GET', `/threads/${enc(thread)}/new${query({ limit })}`);
  history = ({ thread, limit, before, after }: AsTyped<Parameters<Api['history']>[0]>): ReturnType<Api['history']> =>
    this.http.request('GET', `/threads/${enc(thread)}/history${query({ limit, before, after })}`);
  search = ({ query: q, thread, limit }: AsTyped<Parameters<Api['search']>[0]>): ReturnType<Api['search']> => this.http.request('GET', `/search${query({ q, thread, limit })}`);

  inbox = (input: AsTyped<InboxInput> = {}): ReturnType<Api['inbox']> => this.http.request('GET', `/inbox${query({ limit: input.limit })}`);
  peek = (input: AsTyped<InboxInput> = {}): ReturnType<Api['peek']> => this.http.request('GET', `/inbox${query({ peek: true, limit: input.limit })}`);
  wait = (input: AsTyped<WaitInput> = {}, signal?: AbortSignal): ReturnType<Api['wait']> =>
    this.http.request('GET', `/inbox/wait${query({ timeout_ms: input.timeout_ms, limit: input.limit, peek: input.peek })}`, undefined, signal);
  ack: Api['ack'] = (input) => this.http.request('POST', '/inbox/ack', input);
  /** `signal` aborts the request (the LLM middleware's bound on a hub that hangs). */
  inject = (input: InjectInput = {}, signal?: AbortSignal): ReturnType<Api['inject']> => this.http.request('POST', '/inbox/inject', input, signal);
  sentDeliveries: Api['sentDeliveries'] = async (input = {}) =>
    (
      await this.http.request<{ deliveries: Awaited<ReturnType<Api['sentDeliveries']>> }>(
        'GET',
        `/deliveries/sent${query({ state: input.state, older_than_ms: input.older_than_ms, limit: input.limit })}`,
      )
    ).deliveries;

  control: Api['control'] = (thread: string, control: ControlInput) => this.http.request('POST', `/threads/${enc(thread)}/controls`, control);

  request: Api['request'] = (input) => this.http.request('POST', '/requests', input);
  respond: Api['respond'] = ({ request_id, ...body }) => this.http.request('POST', `/requests/${enc(request_id)}/responses`, body);
  openRequests: Api['openRequests'] = () => this.http.request('GET', '/requests/open');

  setPresence: Api['setPresence'] = (input) => this.http.request('PUT', '/presence', input);
  who: Api['who'] = async () => (await this.http.request<{ presence: Awaited<ReturnType<Api['who']>> }>('GET', '/presence')).presence;

  meetings: Api['meetings'] = async () => (await this.http.request<{ meetings: Awaited<ReturnType<Api['meetings']>> }>('GET', '/meetings')).meetings;
  meetingJoin: Api['meetingJoin'] = (meeting) => this.http.request('POST', `/meetings/${enc(meeting)}/join`);
  meetingLeave: Api['meetingLeave'] = (meeting) => this.http.request('POST', `/meetings/${enc(meeting)}/leave`);
  meetingSay: Api['meetingSay'] = (meeting, text) => this.http.request('POST', `/meetings/${enc(meeting)}/say`, { text });
  meetingHear = ({ meeting, last_heard, limit }: AsTyped<MeetingHearInput>): ReturnType<Api['meetingHear']> =>
    this.http.request('GET', `/meetings/${enc(meeting)}/hear${query({ last_heard, limit })}`);
  meetingWho: Api['meetingWho'] = (meeting) => this.http.request('GET', `/meetings/${enc(meeting)}/who`);
  meetingStatus = (meeting: string, lastHeard?: number | string): ReturnType<Api['meetingStatus']> =>
    this.http.request('GET', `/meetings/${enc(meeting)}/status${query({ last_heard: lastHeard })}`);

  #subscription(thread: string, state: 'subscribed' | 'unsubscribed' | 'muted') {
    return this.http.request<Awaited<ReturnType<Api['subscribe']>>>('PUT', `/threads/${enc(thread)}/subscription`, { state });
  }
}
