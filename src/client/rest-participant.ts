import type { ParticipantApi } from '../hub/index.js';
import type { ControlInput } from '../schema/control.js';
import type { InboxInput, InjectInput, MeetingHearInput, WaitInput } from '../schema/inputs.js';
import type { ThreadDetail } from '../schema/views.js';
import { HttpJsonClient } from './http-json.js';
import { HubConnection } from './hub-connection.js';

/**
 * A participant of a running hub, reached over its REST API with a bearer
 * token: the same interface as the in-process `Actor`, one request per call.
 * `parley mcp` (stdio) serves its tools through this.
 */
type Api = ParticipantApi;

const enc = encodeURIComponent;

function query(params: Record<string, string | number | boolean | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${enc(String(value))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export class RestParticipant implements ParticipantApi {
  readonly #http: HttpJsonClient;

  constructor(url: string, token: string) {
    this.#http = new HttpJsonClient(url, token);
  }

  get url(): string {
    return this.#http.url;
  }

  close(): void {
    this.#http.close();
  }

  /** Resolves once every call made so far has been answered. */
  settle(): Promise<void> {
    return this.#http.settle();
  }

  /** Keeps this participant present on the hub until the connection is closed (see HubConnection). */
  connect(): Promise<HubConnection> {
    return HubConnection.open(this.#http);
  }

  /** Who this is, and what the hub allows it (`hub.chat`: whether it has chat there). */
  whoami = (): Promise<Awaited<ReturnType<Api['whoami']>> & { hub?: { chat: boolean } }> => this.#http.request('GET', '/whoami');
  updateProfile: Api['updateProfile'] = async (patch) =>
    (await this.#http.request<{ participant: Awaited<ReturnType<Api['updateProfile']>> }>('PATCH', '/profile', patch)).participant;
  participants: Api['participants'] = async () =>
    (await this.#http.request<{ participants: Awaited<ReturnType<Api['participants']>> }>('GET', '/participants')).participants;

  post: Api['post'] = ({ thread, ...body }) => this.#http.request('POST', `/threads/${enc(thread)}/messages`, body);
  ingest: Api['ingest'] = (input) => this.#http.request('POST', '/envelopes', input);
  dm: Api['dm'] = (input) => this.#http.request('POST', '/dm', input);
  threads: Api['threads'] = async () => (await this.#http.request<{ threads: Awaited<ReturnType<Api['threads']>> }>('GET', '/threads')).threads;
  createChannel: Api['createChannel'] = (input) => this.#http.request('POST', '/threads', input);
  renameThread: Api['renameThread'] = ({ thread, ...body }) => this.#http.request('POST', `/threads/${enc(thread)}/rename`, body);
  openSide: Api['openSide'] = ({ parent, ...body }) => this.#http.request('POST', `/threads/${enc(parent)}/side`, body);
  closeSide: Api['closeSide'] = ({ thread, ...body }) => this.#http.request('POST', `/threads/${enc(thread)}/close`, body);
  subscribe: Api['subscribe'] = (thread) => this.#subscription(thread, 'subscribed');
  unsubscribe: Api['unsubscribe'] = (thread) => this.#subscription(thread, 'unsubscribed');
  mute: Api['mute'] = (thread) => this.#subscription(thread, 'muted');

  /** A thread's steering state and members (what the page's steering panel shows). */
  threadDetail = (thread: string): Promise<ThreadDetail> => this.#http.request('GET', `/threads/${enc(thread)}`);

  readNew: Api['readNew'] = ({ thread, limit }) => this.#http.request('GET', `/threads/${enc(thread)}/new${query({ limit })}`);
  history: Api['history'] = ({ thread, limit, before, after }) =>
    this.#http.request('GET', `/threads/${enc(thread)}/history${query({ limit, before, after })}`);
  search: Api['search'] = ({ query: q, thread, limit }) => this.#http.request('GET', `/search${query({ q, thread, limit })}`);

  inbox: Api['inbox'] = (input: InboxInput = {}) => this.#http.request('GET', `/inbox${query({ limit: input.limit })}`);
  peek: Api['peek'] = (input: InboxInput = {}) => this.#http.request('GET', `/inbox${query({ peek: true, limit: input.limit })}`);
  wait: Api['wait'] = (input: WaitInput = {}, signal?: AbortSignal) =>
    this.#http.request('GET', `/inbox/wait${query({ timeout_ms: input.timeout_ms, limit: input.limit, peek: input.peek })}`, undefined, signal);
  ack: Api['ack'] = (input) => this.#http.request('POST', '/inbox/ack', input);
  /** `signal` aborts the request (the LLM middleware's bound on a hub that hangs). */
  inject = (input: InjectInput = {}, signal?: AbortSignal): ReturnType<Api['inject']> => this.#http.request('POST', '/inbox/inject', input, signal);
  sentDeliveries: Api['sentDeliveries'] = async (input = {}) =>
    (
      await this.#http.request<{ deliveries: Awaited<ReturnType<Api['sentDeliveries']>> }>(
        'GET',
        `/deliveries/sent${query({ state: input.state, older_than_ms: input.older_than_ms, limit: input.limit })}`,
      )
    ).deliveries;

  control: Api['control'] = (thread: string, control: ControlInput) => this.#http.request('POST', `/threads/${enc(thread)}/controls`, control);

  request: Api['request'] = (input) => this.#http.request('POST', '/requests', input);
  respond: Api['respond'] = ({ request_id, ...body }) => this.#http.request('POST', `/requests/${enc(request_id)}/responses`, body);
  openRequests: Api['openRequests'] = () => this.#http.request('GET', '/requests/open');

  setPresence: Api['setPresence'] = (input) => this.#http.request('PUT', '/presence', input);
  who: Api['who'] = async () => (await this.#http.request<{ presence: Awaited<ReturnType<Api['who']>> }>('GET', '/presence')).presence;

  meetings: Api['meetings'] = async () => (await this.#http.request<{ meetings: Awaited<ReturnType<Api['meetings']>> }>('GET', '/meetings')).meetings;
  meetingJoin: Api['meetingJoin'] = (meeting) => this.#http.request('POST', `/meetings/${enc(meeting)}/join`);
  meetingLeave: Api['meetingLeave'] = (meeting) => this.#http.request('POST', `/meetings/${enc(meeting)}/leave`);
  meetingSay: Api['meetingSay'] = (meeting, text) => this.#http.request('POST', `/meetings/${enc(meeting)}/say`, { text });
  meetingHear: Api['meetingHear'] = ({ meeting, last_heard, limit }: MeetingHearInput) =>
    this.#http.request('GET', `/meetings/${enc(meeting)}/hear${query({ last_heard, limit })}`);
  meetingWho: Api['meetingWho'] = (meeting) => this.#http.request('GET', `/meetings/${enc(meeting)}/who`);
  meetingStatus: Api['meetingStatus'] = (meeting, lastHeard) =>
    this.#http.request('GET', `/meetings/${enc(meeting)}/status${query({ last_heard: lastHeard })}`);

  #subscription(thread: string, state: 'subscribed' | 'unsubscribed' | 'muted') {
    return this.#http.request<Awaited<ReturnType<Api['subscribe']>>>('PUT', `/threads/${enc(thread)}/subscription`, { state });
  }
}
