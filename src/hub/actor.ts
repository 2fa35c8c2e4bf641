import type { AgentHookInput, AgentHookResult } from '../schema/agent-hook.js';
import type { Access } from '../schema/access.js';
import type { ControlInput } from '../schema/control.js';
import type {
  AckInput,
  CloseSideInput,
  CreateChannelInput,
  DeliveriesInput,
  DmInput,
  EnvelopeInput,
  ExportInput,
  HistoryInput,
  InboxInput,
  InjectInput,
  LiveFilterInput,
  MeetingHearInput,
  OpenSideInput,
  PostInput,
  PresenceInput,
  ReadNewInput,
  RenameThreadInput,
  RequestInput,
  RespondInput,
  SearchInput,
  WaitInput,
} from '../schema/inputs.js';
import type { Participant, SelfProfilePatch, WakeOn } from '../schema/participant.js';
import type { TrustMode } from '../schema/views.js';
import type { DeliveryStateFilter } from '../store/delivery-store.js';
import { agentHook } from './agent-hook.js';
import { openConnection, type Connection } from './connection.js';
import type { Caller } from './records.js';
import type { HubContext } from './context.js';
import { inject } from './context-items.js';
import { applyControl } from './controls.js';
import { deliveriesIn, deliveryFilterOf, sentDeliveries } from './delivery-view.js';
import { accessCheck, PARTICIPANT_ENTRIES as API, SURFACE_ENTRIES as SURFACE } from './entries.js';
import { exportThread } from './export.js';
import type { ThreadExport } from './export-pages.js';
import { callerOf, type Gate } from './gate.js';
import { Ending } from './held.js';
import { acknowledge } from './acknowledgement.js';
import { readInbox } from './inbox.js';
import { waitForInbox } from './inbox-wait.js';
import { takeEnvelope } from './ingest.js';
import { hearInMeeting, joinMeeting, leaveMeeting, listMeetings, meetingRing, meetingStatus, meetingWho, sayInMeeting, type HearView, type MeetingStatusView, type MeetingSummary, type MeetingView, type RingView } from './meeting-ops.js';
import type { ParticipantApi } from './participant-api.js';
import { participantsOf, sessionsOf, setAccessOf, updateProfile, whoami, type SessionView } from './participant-views.js';
import type { Action } from './permissions.js';
import type { PresenceInfo } from './presence.js';
import { setPresence, whoIsHere } from './presence-ops.js';
import { dm, post } from './posting.js';
import { history, listThreads, readNew, search } from './reading.js';
import { openRequests, respond, sendRequest, type OpenRequest } from './requests.js';
import { participantView } from './records.js';
import { openLive, type LiveSubscription } from './subscription.js';
import { closeSide, createChannel, openSide, renameThread, setSubscription } from './thread-ops.js';
import type { ThreadInfo } from './threads.js';
import { markRead, threadDetail, type ThreadDetail } from './thread-view.js';
import type { AckResult, ControlResult, HistoryResult, InboxResult, IngestResult, InjectResult, PostResult, ReadNewResult, ReceivedDelivery, RequestResult, ResponseResult, SentDelivery, SideClosed, SideOpened, WaitResult } from './answers.js';

/**
 * One participant acting in one session: the library's API for everything a
 * participant can do, and what REST, MCP, the CLI and the hooks call. Every
 * method is one entry through the hub's gate (gate.ts; its gating is the
 * table in entries.ts): every call reads and writes only this session, and
 * the author of everything written is this participant.
 */
export class Actor implements ParticipantApi {
  readonly #ctx: HubContext;
  readonly #gate: Gate;
  readonly #who: { participantId: string; sessionId: string };

  constructor(ctx: HubContext, gate: Gate, who: { participantId: string; sessionId: string }) {
    this.#ctx = ctx;
    this.#gate = gate;
    this.#who = who;
  }

  // Who this is: the credential's own records, read without entering the hub (they throw NOT_FOUND once gone).

  get participant(): Participant & { pubkey: string } {
    return participantView(this.#records().participant);
  }

  get session(): { id: string; name: string } {
    const { session } = this.#records();
    return { id: session.id, name: session.name };
  }

  /** The caller's permission role now; undefined when a roster is in force and its key is not in it. */
  get access(): Access | undefined {
    return this.#ctx.access.accessOf(this.#records().participant);
  }

  /** The newest committed seq: a client that lists threads and then streams with `since` set to this misses nothing committed in between. */
  get head(): number {
    return this.#ctx.store.events.visibleUpTo;
  }

  #records(): Caller {
    return callerOf(this.#ctx, this.#who);
  }

  // Who and where -----------------------------------------------------------

  /** Open to anyone who holds a credential, even outside the roster: it is how they learn which key to have added. */
  whoami(): Promise<{ participant: Participant; session: { id: string; name: string }; wakeOn: WakeOn; access: Access | null; trust: TrustMode }> {
    return this.#gate.call(API.whoami, this.#who, undefined, ({ caller }) => whoami(this.#ctx, caller));
  }

  /** Changes this participant's own profile: only the fields given; kind and roles are set when it joins. */
  updateProfile(patch: SelfProfilePatch): Promise<Participant> {
    return this.#gate.call(API.updateProfile, this.#who, patch, ({ caller }) => updateProfile(this.#ctx, caller, patch));
  }

  /** The participants of this session, with their access. */
  participants(): Promise<Array<Participant & { access: Access | null }>> {
    return this.#gate.call(API.participants, this.#who, undefined, ({ caller }) => participantsOf(this.#ctx, caller));
  }

  /** The sessions this participant has joined (others' sessions are theirs). */
  sessions(): Promise<SessionView[]> {
    return this.#gate.call(SURFACE.sessions, this.#who, undefined, ({ caller }) => sessionsOf(this.#ctx, caller));
  }

  /** Local mode: an admin sets any participant's access; it takes effect on their next call. */
  setAccess(handle: string, access: Access): Promise<Participant & { access: Access }> {
    return this.#gate.call(SURFACE.setAccess, this.#who, undefined, () => setAccessOf(this.#ctx, handle, access));
  }

  /** Calls `listener` whenever this participant's access may have changed; returns the unsubscribe. */
  onAccessChange(listener: () => void): () => void {
    return this.#gate.open(SURFACE.watchAccess, this.#who, undefined, ({ caller }) => ({
      value: this.#ctx.access.onChange((id) => {
        if (id === undefined || id === caller.participant.id) listener();
      }),
      ending: new Ending(),
    }));
  }

  /** Refuses (FORBIDDEN_ROLE, NOT_IN_ROSTER) unless the caller may take the action, for what the hub does on its behalf (a roster push). */
  assertMay(action: Action): void {
    this.#gate.check(accessCheck(action), this.#who);
  }

  /** Holds this participant present while a connection of its lasts (an MCP session); returns the release. */
  holdPresence(kind: 'mcp' | 'stream'): () => void {
    return this.#gate.open(kind === 'mcp' ? SURFACE.mcpSession : SURFACE.streamSession, this.#who, undefined, () => {
      const ending = new Ending();
      return { value: ending.end, ending };
    });
  }

  /** Holds this participant present for an MCP session served in another process (`parley mcp`), until closed or the hub shuts down. */
  connect(): Connection {
    return this.#gate.open(SURFACE.connect, this.#who, undefined, ({ caller }) => openConnection(this.#ctx, caller));
  }

  /** Live events (and presence and meeting traffic) of this session, as an AsyncIterable; the participant is present while it is open. */
  live(input: LiveFilterInput = {}): LiveSubscription {
    return this.#gate.open(SURFACE.live, this.#who, input, (admitted) => openLive(this.#ctx, admitted));
  }

  /** An agent CLI's hook run (`parley hook`): presence from the agent's activity, its new items as context, whether to block its stop. */
  agentHook(input: AgentHookInput, signal?: AbortSignal): Promise<AgentHookResult> {
    return this.#gate.call(SURFACE.agentHook, this.#who, input, ({ caller }) => agentHook(this.#ctx, caller, input, signal));
  }

  // Conversation ------------------------------------------------------------

  post(input: PostInput): Promise<PostResult> {
    return this.#gate.call(API.post, this.#who, input, (admitted) => post(this.#ctx, admitted));
  }

  /** Hands in a message its author signed itself: stored as signed, or refused (see envelope-opening.ts). */
  ingest(input: EnvelopeInput): Promise<IngestResult> {
    return this.#gate.call(API.ingest, this.#who, input, (admitted) => takeEnvelope(this.#ctx, admitted));
  }

  dm(input: DmInput): Promise<PostResult> {
    return this.#gate.call(API.dm, this.#who, input, ({ caller }) => dm(this.#ctx, caller, input));
  }

  createChannel(input: CreateChannelInput): Promise<ThreadInfo> {
    return this.#gate.call(API.createChannel, this.#who, input, ({ caller }) => createChannel(this.#ctx, caller, input));
  }

  renameThread(input: RenameThreadInput): Promise<ThreadInfo> {
    return this.#gate.call(API.renameThread, this.#who, input, (admitted) => renameThread(this.#ctx, admitted));
  }

  openSide(input: OpenSideInput): Promise<SideOpened> {
    return this.#gate.call(API.openSide, this.#who, input, (admitted) => openSide(this.#ctx, admitted));
  }

  closeSide(input: CloseSideInput): Promise<SideClosed> {
    return this.#gate.call(API.closeSide, this.#who, input, (admitted) => closeSide(this.#ctx, admitted));
  }

  subscribe(thread: string): Promise<ThreadInfo> {
    return this.#gate.call(API.subscribe, this.#who, { thread, state: 'subscribed' }, (admitted) => setSubscription(this.#ctx, admitted));
  }

  mute(thread: string): Promise<ThreadInfo> {
    return this.#gate.call(API.mute, this.#who, { thread, state: 'muted' }, (admitted) => setSubscription(this.#ctx, admitted));
  }

  unsubscribe(thread: string): Promise<ThreadInfo> {
    return this.#gate.call(API.unsubscribe, this.#who, { thread, state: 'unsubscribed' }, (admitted) => setSubscription(this.#ctx, admitted));
  }

  threads(): Promise<ThreadInfo[]> {
    return this.#gate.call(API.threads, this.#who, undefined, ({ caller }) => listThreads(this.#ctx, caller));
  }

  /** A thread's steering state and members, with who set what (the page's steering panel). */
  threadDetail(thread: string): Promise<ThreadDetail> {
    return this.#gate.call(SURFACE.threadDetail, this.#who, { thread }, (admitted) => threadDetail(this.#ctx, admitted));
  }

  /** Marks a thread read up to a seq, as someone who has seen it on the page. */
  markRead(thread: string, upTo: number): Promise<{ readUpTo: number }> {
    return this.#gate.call(SURFACE.markRead, this.#who, { thread, up_to: upTo }, (admitted) => markRead(this.#ctx, admitted));
  }

  /** The thread's whole log as Markdown (for people), JSON Lines (for programs) or signed (for `parley verify`). */
  export(input: ExportInput): Promise<ThreadExport> {
    return this.#gate.call(SURFACE.export, this.#who, input, (admitted) => exportThread(this.#ctx, admitted));
  }

  // Reading -----------------------------------------------------------------

  readNew(input: ReadNewInput): Promise<ReadNewResult> {
    return this.#gate.call(API.readNew, this.#who, input, (admitted) => readNew(this.#ctx, admitted));
  }

  history(input: HistoryInput): Promise<HistoryResult> {
    return this.#gate.call(API.history, this.#who, input, (admitted) => history(this.#ctx, admitted));
  }

  search(input: SearchInput): Promise<Awaited<ReturnType<typeof search>>> {
    return this.#gate.call(API.search, this.#who, input, (admitted) => search(this.#ctx, admitted));
  }

  inbox(input: InboxInput = {}): Promise<InboxResult> {
    return this.#gate.call(API.inbox, this.#who, input, ({ caller }) => readInbox(this.#ctx, caller, input, { peek: false }));
  }

  peek(input: InboxInput = {}): Promise<InboxResult> {
    return this.#gate.call(API.peek, this.#who, input, ({ caller }) => readInbox(this.#ctx, caller, input, { peek: true }));
  }

  /** While it waits, the participant's presence is waiting; a shutdown ends it (HUB_CLOSED) instead of waiting for it. */
  wait(input: WaitInput = {}, signal?: AbortSignal): Promise<WaitResult> {
    return this.#gate.call(API.wait, this.#who, input, ({ caller }) => waitForInbox(this.#ctx, caller, input, signal));
  }

  ack(input: AckInput): Promise<AckResult> {
    return this.#gate.call(API.ack, this.#who, input, ({ caller }) => acknowledge(this.#ctx, caller, input));
  }

  /** New waking items not yet given to the caller, each once, for a hook or the LLM middleware to put into the agent's context. */
  inject(input: InjectInput = {}): Promise<InjectResult> {
    return this.#gate.call(API.inject, this.#who, input, ({ caller }) => inject(this.#ctx, caller, input));
  }

  /** Targeted items of the caller in one delivery state, e.g. `unacknowledged` ones still awaiting an ack after `olderThanMs`. */
  deliveries(state: DeliveryStateFilter = 'delivered', limit = 100, olderThanMs?: number): Promise<ReceivedDelivery[]> {
    const input = { state, limit, ...(olderThanMs === undefined ? {} : { older_than_ms: olderThanMs }) };
    return this.#gate.call(SURFACE.deliveries, this.#who, input, ({ caller }) => deliveriesIn(this.#ctx, caller, deliveryFilterOf(this.#ctx, input)));
  }

  /** Per-recipient delivery states of what the caller sent (every state unless one is given), newest first. */
  sentDeliveries(input: DeliveriesInput = {}): Promise<SentDelivery[]> {
    return this.#gate.call(API.sentDeliveries, this.#who, input, ({ caller }) =>
      sentDeliveries(this.#ctx, caller, deliveryFilterOf(this.#ctx, { ...input, state: input.state ?? 'all' })),
    );
  }

  // Steering ----------------------------------------------------------------

  control(thread: string, control: ControlInput): Promise<ControlResult> {
    return this.#gate.call(API.control, this.#who, { thread, control }, (admitted) => applyControl(this.#ctx, admitted));
  }

  hardMute(thread: string, targets: string[]): Promise<ControlResult> {
    return this.control(thread, { mute: { targets, mode: 'hard' } });
  }

  unmute(thread: string, targets: string[]): Promise<ControlResult> {
    return this.control(thread, { unmute: { targets } });
  }

  pause(thread: string): Promise<ControlResult> {
    return this.control(thread, { pause: { on: true } });
  }

  resume(thread: string): Promise<ControlResult> {
    return this.control(thread, { pause: { on: false } });
  }

  /** Pins a thread (retention keeps all of it) or unpins it. */
  pin(thread: string, on = true): Promise<ControlResult> {
    return this.control(thread, { pin: { on } });
  }

  prod(thread: string, targets: string[]): Promise<ControlResult> {
    return this.control(thread, { prod: targets });
  }

  done(thread: string, done = true): Promise<ControlResult> {
    return this.control(thread, { done });
  }

  invite(thread: string, handle: string, profile?: Extract<ControlInput, { invite: unknown }>['invite']['profile']): Promise<ControlResult> {
    return this.control(thread, { invite: { participant_id: handle, ...(profile === undefined ? {} : { profile }) } });
  }

  // Requests ----------------------------------------------------------------

  request(input: RequestInput): Promise<RequestResult> {
    return this.#gate.call(API.request, this.#who, input, (admitted) => sendRequest(this.#ctx, admitted));
  }

  respond(input: RespondInput): Promise<ResponseResult> {
    return this.#gate.call(API.respond, this.#who, input, ({ caller }) => respond(this.#ctx, caller, input));
  }

  openRequests(): Promise<{ incoming: OpenRequest[]; outgoing: OpenRequest[] }> {
    return this.#gate.call(API.openRequests, this.#who, undefined, ({ caller }) => openRequests(this.#ctx, caller));
  }

  // Presence ----------------------------------------------------------------

  setPresence(input: PresenceInput): Promise<{ applied: boolean; presence: PresenceInfo | undefined }> {
    return this.#gate.call(API.setPresence, this.#who, input, (admitted) => setPresence(this.#ctx, admitted));
  }

  /** Presence of every participant of the session (offline without a live connection). */
  who(): Promise<PresenceInfo[]> {
    return this.#gate.call(API.who, this.#who, undefined, ({ caller }) => whoIsHere(this.#ctx, caller));
  }

  // Meetings ----------------------------------------------------------------

  meetings(): Promise<MeetingSummary[]> {
    return this.#gate.call(API.meetings, this.#who, undefined, ({ caller }) => listMeetings(this.#ctx, caller));
  }

  meetingJoin(meeting: string): Promise<MeetingView> {
    return this.#gate.call(API.meetingJoin, this.#who, meeting, ({ caller, input }) => joinMeeting(this.#ctx, caller, input));
  }

  meetingLeave(meeting: string): Promise<{ left: boolean }> {
    return this.#gate.call(API.meetingLeave, this.#who, meeting, ({ caller }) => leaveMeeting(this.#ctx, caller, meeting));
  }

  meetingSay(meeting: string, text: string): Promise<{ number: number; truncated: boolean; redacted: boolean }> {
    return this.#gate.call(API.meetingSay, this.#who, { meeting, text }, ({ caller }) => sayInMeeting(this.#ctx, caller, { meeting, text }));
  }

  meetingHear(input: MeetingHearInput): Promise<HearView> {
    return this.#gate.call(API.meetingHear, this.#who, input, ({ caller }) => hearInMeeting(this.#ctx, caller, input));
  }

  meetingWho(meeting: string): Promise<MeetingView> {
    return this.#gate.call(API.meetingWho, this.#who, meeting, ({ caller }) => meetingWho(this.#ctx, caller, meeting));
  }

  /** Without `lastHeard`, unread counts from the line the hub kept for this participant. */
  meetingStatus(meeting: string, lastHeard?: number): Promise<MeetingStatusView> {
    return this.#gate.call(API.meetingStatus, this.#who, meeting, ({ caller }) => meetingStatus(this.#ctx, caller, { meeting, last_heard: lastHeard }));
  }

  /** The whole retained ring, for a person reviewing the room (the page's meeting view). */
  meetingRing(meeting: string): Promise<RingView> {
    return this.#gate.call(SURFACE.meetingRing, this.#who, meeting, ({ caller }) => meetingRing(this.#ctx, caller, meeting));
  }
}
