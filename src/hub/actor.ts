import { ingestEnvelope, type IngestResult } from './ingest.js';
import type { EnvelopeInput } from '../schema/inputs.js';
import { ParleyError, parseInput } from '../errors/parley-error.js';
import type { ControlInput } from '../schema/control.js';
import type {
  AckInput,
  CloseSideInput,
  CreateChannelInput,
  DmInput,
  HistoryInput,
  InboxInput,
  InjectInput,
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
import { LiveFilterInputSchema, PresenceInputSchema, type DeliveriesInput, type ExportInput, type LiveFilterInput } from '../schema/inputs.js';
import { exportThread } from './export.js';
import type { ThreadExport } from './export-pages.js';
import { REGISTERED_PROFILE_FIELDS, SelfProfilePatchSchema, type Participant, type SelfProfilePatch, type WakeOn } from '../schema/participant.js';
import { ensureParticipant } from './directory.js';
import { transact } from './writer.js';
import type { DeliveryStateFilter } from '../store/delivery-store.js';
import { deliveryFilterOf, sentDeliveries, type ReceivedDelivery, type SentDelivery } from './delivery-view.js';
import { inject, type InjectResult } from './context-items.js';
import { agentHook } from './agent-hook.js';
import type { AgentHookInput, AgentHookResult } from '../schema/agent-hook.js';
import type { Redactor } from '../redaction/redactor.js';
import { redactInput } from './authored-input.js';
import type { HubContext } from './context.js';
import { assertChatAllowed } from './chat-exclusion.js';
import { holdPresence } from './presence-hold.js';
import { applyControl, type ControlResult } from './controls.js';
import { acknowledge, deliveriesIn, readInbox, waitForInbox, type AckResult, type InboxResult, type WaitResult } from './inbox.js';
import {
  hearInMeeting,
  joinMeeting,
  leaveMeeting,
  listMeetings,
  meetingRing,
  meetingStatus,
  meetingWho,
  sayInMeeting,
  type HearView,
  type MeetingStatusView,
  type MeetingView,
  type RingView,
} from './meeting-ops.js';
import { dm, post, type PostResult } from './posting.js';
import type { PresenceInfo } from './presence.js';
import { history, listThreads, readNew, search, type HistoryResult, type ReadNewResult } from './reading.js';
import { openRequests, respond, sendRequest, type OpenRequest, type RequestResult, type ResponseResult } from './requests.js';
import { assertMayRead, mayRead } from './channel-access.js';
import { resolveFor, type Caller } from './caller.js';
import { participantView } from './state.js';
import { wakeOnFor } from './wake-on.js';
import { subscribe, type LiveSubscription } from './subscription.js';
import { closeSide, createChannel, openSide, renameThread, setSubscription, type SideClosed, type SideOpened } from './thread-ops.js';
import type { ThreadInfo } from './threads.js';
import { markRead, threadDetail, type ThreadDetail } from './thread-view.js';
import type { ParticipantApi } from './participant-api.js';
import type { Action } from './permissions.js';
import { AccessSchema, type Access } from '../schema/access.js';
import { HandleSchema } from '../schema/names.js';
import type { TrustMode } from '../schema/views.js';

/** Subscribing, unsubscribing and muting a thread for oneself are writes of one's own state (not the steering mute). */
const SUBSCRIPTION_ACTIONS = { subscribed: 'subscribe', muted: 'self_mute', unsubscribed: 'unsubscribe' } as const satisfies Record<string, Action>;

/** The steering control's name as a refusal shows it ("pause needs admin"); every control needs admin. */
function controlLabel(control: ControlInput): string {
  const key = typeof control === 'object' && control !== null ? Object.keys(control)[0] : undefined;
  if (key === 'pause') return (control as { pause?: { on?: unknown } }).pause?.on === false ? 'resume' : 'pause';
  return key ?? 'steer';
}

function closingError(): ParleyError {
  return new ParleyError('HUB_CLOSED', 'The hub is shutting down; nothing was done. Retry against the running hub.');
}

/**
 * One participant acting in one session: the library's API for everything a
 * participant can do. Every call reads and writes only this session, and the
 * author of everything written is this participant. Every call also counts as
 * a sign of life for presence.
 */
export class Actor implements ParticipantApi {
  readonly #ctx: HubContext;
  readonly #participantId: string;
  readonly #sessionId: string;
  readonly #meetingRedactor: Redactor;

  constructor(ctx: HubContext, caller: Caller, meetingRedactor: Redactor) {
    this.#ctx = ctx;
    this.#participantId = caller.participant.id;
    this.#sessionId = caller.session.id;
    this.#meetingRedactor = meetingRedactor;
  }

  /** Looked up on every call: the records are replaced if the hub reloads its state. */
  get #caller(): Caller {
    const participant = this.#ctx.state.participants.get(this.#participantId);
    const session = this.#ctx.state.sessions.get(this.#sessionId);
    if (!participant || !session) throw new ParleyError('NOT_FOUND', 'This participant or session no longer exists on the hub; join again.');
    return { participant, session };
  }

  get participant(): Participant {
    return participantView(this.#caller.participant);
  }

  /**
   * Who the caller is, with its access and how access is decided. Open to
   * anyone who holds a credential, even outside the roster: it is how they
   * learn which key to have added.
   */
  async whoami(): Promise<{ participant: Participant; session: { id: string; name: string }; wakeOn: WakeOn; access: Access | null; trust: TrustMode }> {
    return {
      participant: this.participant,
      session: this.session,
      wakeOn: wakeOnFor(this.#ctx.config, this.#caller.participant.profile),
      access: this.access ?? null,
      trust: this.#ctx.access.trust,
    };
  }

  /** The caller's permission role now; undefined when a roster is in force and its key is not in it. */
  get access(): Access | undefined {
    return this.#ctx.access.accessOf(this.#caller.participant);
  }

  /**
   * Local mode: an admin sets a participant's access (any participant of the
   * hub); it takes effect on their next call.
   */
  setAccess(handle: string, access: Access): Promise<Participant & { access: Access }> {
    return this.#run('access_set', async () => {
      const target = this.#ctx.state.participantByHandle(parseInput(HandleSchema, handle, 'handle'));
      if (!target) throw new ParleyError('NOT_FOUND', `No participant "@${handle}" on this hub; check the handle.`, { field: 'handle' });
      await this.#ctx.access.setLocal(target, parseInput(AccessSchema, access, 'access'));
      return { ...participantView(target), access };
    });
  }

  /** Calls `listener` whenever this participant's access may have changed; returns the unsubscribe. */
  onAccessChange(listener: () => void): () => void {
    return this.#ctx.access.onChange((id) => {
      if (id === undefined || id === this.#participantId) listener();
    });
  }

  /** Refuses (FORBIDDEN_ROLE, NOT_IN_ROSTER) unless the caller may take the action, for what the hub does on its behalf (a roster push). */
  assertMay(action: Action): void {
    this.#need(action);
  }

  /** Refuses (FORBIDDEN_ROLE, NOT_IN_ROSTER) an action the caller's access does not cover; nothing is done. */
  #need(action: Action, label?: string): void {
    this.#ctx.access.require(this.#caller.participant, action, label);
  }

  get session(): { id: string; name: string } {
    return { id: this.#caller.session.id, name: this.#caller.session.name };
  }

  /**
   * Runs one operation: refused once the hub is closing, or when the caller's
   * access does not cover the action (the permission table, checked here once
   * for every surface); counted while in flight so that closing waits for it,
   * and a sign of life for presence.
   */
  #run<T>(action: Action, operation: () => T | Promise<T>, label?: string, chat = false): Promise<T> {
    const { lifecycle } = this.#ctx;
    if (lifecycle.closing) return Promise.reject(closingError());
    try {
      // Chat a participant does not have is refused as such (CHAT_DISABLED), whatever its access.
      if (chat) assertChatAllowed(this.#ctx.config, this.#caller);
      this.#need(action, label);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    this.#alive();
    return lifecycle.track(Promise.resolve().then(operation));
  }

  /** A heavy read: run in the participant's turn (see ReadGate). */
  #read<T>(action: Action, operation: () => T | Promise<T>, chat = false): Promise<T> {
    return this.#run(action, () => this.#ctx.reads.run(this.#caller.participant.id, operation), undefined, chat);
  }

  /** A heavy chat read: refused for a participant excluded from chat, else run in its turn. */
  #chatRead<T>(action: Action, operation: () => T | Promise<T>): Promise<T> {
    return this.#read(action, operation, true);
  }

  /** Runs a chat operation: refused (CHAT_DISABLED) for a participant excluded from chat. */
  #chat<T>(action: Action, operation: () => T | Promise<T>, label?: string): Promise<T> {
    return this.#run(action, operation, label, true);
  }

  /** A one-shot call: last seen moves; being present takes a live connection (see holdPresence). */
  #alive(): void {
    this.#ctx.presence.touch(this.#caller.session.id, this.#caller.participant);
  }

  /**
   * Holds this participant present while a connection of its lasts (an MCP
   * session, say); returns the release. Its last release makes it offline and
   * takes it out of every meeting.
   */
  holdPresence(kind: 'mcp' | 'stream'): () => void {
    return holdPresence(this.#ctx, this.#caller, kind);
  }

  // Conversation ----------------------------------------------------------

  post(input: PostInput): Promise<PostResult> {
    return this.#chat('post', () => post(this.#ctx, this.#caller, input));
  }

  ingest(input: EnvelopeInput): Promise<IngestResult> {
    return this.#chat('post', () => ingestEnvelope(this.#ctx, this.#caller, input));
  }

  dm(input: DmInput): Promise<PostResult> {
    return this.#chat('dm', () => dm(this.#ctx, this.#caller, input));
  }

  createChannel(input: CreateChannelInput): Promise<ThreadInfo> {
    return this.#chat('thread_create', () => createChannel(this.#ctx, this.#caller, input));
  }

  renameThread(input: RenameThreadInput): Promise<ThreadInfo> {
    return this.#chat('thread_rename', () => renameThread(this.#ctx, this.#caller, input));
  }

  openSide(input: OpenSideInput): Promise<SideOpened> {
    return this.#chat('side_open', () => openSide(this.#ctx, this.#caller, input));
  }

  closeSide(input: CloseSideInput): Promise<SideClosed> {
    return this.#chat('side_close', () => closeSide(this.#ctx, this.#caller, input));
  }

  subscribe(thread: string): Promise<ThreadInfo> {
    return this.#subscription(thread, 'subscribed');
  }

  mute(thread: string): Promise<ThreadInfo> {
    return this.#subscription(thread, 'muted');
  }

  unsubscribe(thread: string): Promise<ThreadInfo> {
    return this.#subscription(thread, 'unsubscribed');
  }

  #subscription(thread: string, state: 'subscribed' | 'muted' | 'unsubscribed'): Promise<ThreadInfo> {
    return this.#chat(SUBSCRIPTION_ACTIONS[state], () => setSubscription(this.#ctx, this.#caller, { thread, state }));
  }

  async threads(): Promise<ThreadInfo[]> {
    return this.#chat('threads', () => listThreads(this.#ctx, this.#caller));
  }

  /**
   * The newest committed seq in the hub: a client that lists threads and then
   * streams with `since` set to this misses nothing committed in between.
   */
  get head(): number {
    return this.#ctx.store.events.visibleUpTo;
  }

  /** A thread's steering state and members, with who set what (the page's steering panel). */
  async threadDetail(thread: string): Promise<ThreadDetail> {
    return this.#chat('thread_detail', () => threadDetail(this.#ctx, this.#caller, thread));
  }

  /** Marks a thread read up to a seq, as someone who has seen it on the page. */
  async markRead(thread: string, upTo: number): Promise<{ readUpTo: number }> {
    return this.#chat('mark_read', () => markRead(this.#ctx, this.#caller, thread, upTo));
  }

  // Reading ---------------------------------------------------------------

  async readNew(input: ReadNewInput): Promise<ReadNewResult> {
    return this.#chatRead('read_new', () => readNew(this.#ctx, this.#caller, input));
  }

  async history(input: HistoryInput): Promise<HistoryResult> {
    return this.#chatRead('history', () => history(this.#ctx, this.#caller, input));
  }

  async search(input: SearchInput): Promise<Awaited<ReturnType<typeof search>>> {
    return this.#chatRead('search', () => search(this.#ctx, this.#caller, input));
  }

  async inbox(input: InboxInput = {}): Promise<InboxResult> {
    return this.#read('inbox', () => readInbox(this.#ctx, this.#caller, input, { peek: false }));
  }

  async peek(input: InboxInput = {}): Promise<InboxResult> {
    return this.#read('peek', () => readInbox(this.#ctx, this.#caller, input, { peek: true }));
  }

  /**
   * Not counted as in flight: a shutdown ends waits (with HUB_CLOSED) instead
   * of waiting for them. While it waits, the participant's presence is waiting.
   */
  wait(input: WaitInput = {}, signal?: AbortSignal): Promise<WaitResult> {
    if (this.#ctx.lifecycle.closing) return Promise.reject(closingError());
    try {
      this.#need('wait');
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const release = holdPresence(this.#ctx, this.#caller, 'wait');
    return Promise.resolve()
      .then(() => waitForInbox(this.#ctx, this.#caller, input, signal))
      .finally(release);
  }

  async ack(input: AckInput): Promise<AckResult> {
    return this.#run('ack', () => acknowledge(this.#ctx, this.#caller, input));
  }

  /**
   * Targeted items of the caller in one delivery state, e.g. `unacknowledged`
   * ones (delivered or injected) still awaiting an ack after `olderThanMs`.
   */
  async deliveries(state: DeliveryStateFilter = 'delivered', limit = 100, olderThanMs?: number): Promise<ReceivedDelivery[]> {
    return this.#run('deliveries', () =>
      deliveriesIn(this.#ctx, this.#caller, deliveryFilterOf(this.#ctx, { state, limit, ...(olderThanMs === undefined ? {} : { older_than_ms: olderThanMs }) })),
    );
  }

  /** Per-recipient delivery states of what the caller sent (every state unless one is given), newest first. */
  async sentDeliveries(input: DeliveriesInput = {}): Promise<SentDelivery[]> {
    return this.#run('sent_deliveries', () => sentDeliveries(this.#ctx, this.#caller, deliveryFilterOf(this.#ctx, { ...input, state: input.state ?? 'all' })));
  }

  /**
   * The caller's new waking inbox items that no read has given it yet, each
   * once, for a hook or the LLM middleware to put into the agent's context;
   * targeted ones become `injected`.
   */
  async inject(input: InjectInput = {}): Promise<InjectResult> {
    return this.#read('inject', () => inject(this.#ctx, this.#caller, input));
  }

  /**
   * An agent CLI's hook run (`parley hook`, see agentHook): presence from the
   * agent's activity, its new items as context, and whether to block its
   * stop. Not counted in flight as a whole: a stop hook's wait ends at
   * shutdown instead of holding it up (its reads are counted).
   */
  agentHook(input: AgentHookInput, signal?: AbortSignal): Promise<AgentHookResult> {
    if (this.#ctx.lifecycle.closing) return Promise.reject(closingError());
    try {
      this.#need('agent_hook');
    } catch (error) {
      return Promise.reject(error as Error);
    }
    this.#alive();
    return Promise.resolve().then(() => agentHook(this.#ctx, this.#caller, input, signal));
  }

  /** Live events (and presence and meeting traffic) of this session, as an AsyncIterable; the participant is present while it is open. */
  live(input: LiveFilterInput = {}): LiveSubscription {
    if (this.#ctx.lifecycle.closing) throw closingError();
    this.#need('live');
    this.#alive();
    const filter = parseInput(LiveFilterInputSchema, input);
    // Only the inbox's own items for a participant excluded from chat: the rest is chat.
    if (!filter.inbox) assertChatAllowed(this.#ctx.config, this.#caller);
    const thread = filter.thread === undefined ? undefined : resolveFor(this.#ctx, this.#caller, filter.thread);
    if (thread) assertMayRead(this.#ctx, this.#caller, thread);
    const caller = this.#caller;
    let release: (() => void) | undefined;
    let stopWatching: (() => void) | undefined;
    let ended = false;
    const subscription = subscribe(
      this.#ctx,
      caller,
      {
        ...(thread ? { thread } : {}),
        ...(filter.inbox === undefined ? {} : { inbox: filter.inbox }),
        ...(filter.since === undefined ? {} : { since: filter.since }),
        ...(filter.ephemeral === undefined ? {} : { ephemeral: filter.ephemeral }),
      },
      () => {
        ended = true;
        release?.();
        stopWatching?.();
      },
    );
    // Access is checked when a stream opens and again whenever it changes (a new roster, an admin's
    // override): a participant who may no longer read, or no longer read the stream's channel (its
    // policy naming a role), has its open stream ended, not fed.
    if (!ended) {
      stopWatching = this.#ctx.access.onChange((participantId) => {
        if (participantId !== undefined && participantId !== caller.participant.id) return;
        try {
          this.#ctx.access.require(caller.participant, 'live');
        } catch {
          subscription.close();
          return;
        }
        if (thread && !mayRead(this.#ctx, thread, caller.participant.id)) subscription.close();
      });
    }
    // Held once subscribed, so the stream itself carries its participant coming online (the page sees itself connected).
    if (!ended) release = holdPresence(this.#ctx, caller, 'stream');
    return subscription;
  }

  /**
   * Holds this participant present, as for an MCP session served in another
   * process (`parley mcp` over stdio), until closed or the hub shuts down
   * (`ended` resolves then).
   */
  connect(): { ended: Promise<void>; close(): void } {
    if (this.#ctx.lifecycle.closing) throw closingError();
    this.#need('connect');
    const release = holdPresence(this.#ctx, this.#caller, 'mcp');
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    // Listening only to hear the hub shut down; the traffic itself is not wanted.
    const unlisten = this.#ctx.bus.listen(this.#sessionId, () => undefined, () => close());
    const close = (): void => {
      unlisten();
      release();
      end();
    };
    return { ended, close };
  }

  /** The thread's whole log as Markdown (for people) or JSON Lines (for programs). */
  async export(input: ExportInput): Promise<ThreadExport> {
    return this.#chat('export', () => exportThread(this.#ctx, this.#caller, input));
  }

  // Steering ----------------------------------------------------------------

  control(thread: string, control: ControlInput): Promise<ControlResult> {
    return this.#chat('steer', () => applyControl(this.#ctx, this.#caller, thread, control), controlLabel(control));
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
    return this.#run('request_send', () => sendRequest(this.#ctx, this.#caller, input));
  }

  respond(input: RespondInput): Promise<ResponseResult> {
    return this.#run('request_respond', () => respond(this.#ctx, this.#caller, input));
  }

  async openRequests(): Promise<{ incoming: OpenRequest[]; outgoing: OpenRequest[] }> {
    return this.#run('open_requests', () => openRequests(this.#ctx, this.#caller));
  }

  // Presence ----------------------------------------------------------------

  async setPresence(input: PresenceInput): Promise<{ applied: boolean; presence: PresenceInfo | undefined }> {
    this.#need('presence_set');
    const parsed = parseInput(PresenceInputSchema, input);
    const note = (await redactInput(this.#ctx, parsed.note)).value;
    const thread = parsed.thread === undefined ? undefined : resolveFor(this.#ctx, this.#caller, parsed.thread);
    const presence = this.#ctx.presence.set(this.#caller.session.id, this.#caller.participant, {
      state: parsed.state,
      ...(parsed.seq === undefined ? {} : { seq: parsed.seq }),
      ...(thread ? { thread: thread.id } : {}),
      ...(note === undefined ? {} : { note }),
    });
    if (presence) this.#ctx.bus.publish({ kind: 'presence', session: this.#caller.session.id, presence });
    return { applied: presence !== undefined, presence: presence ?? this.#ctx.presence.get(this.#caller.session.id, this.#caller.participant.id) };
  }

  /** Presence of every participant of the session (offline without a live connection). */
  async who(): Promise<PresenceInfo[]> {
    return this.#run('who', () => {
      const { session } = this.#caller;
      return [...session.members].map((id): PresenceInfo => {
        const known = this.#ctx.presence.get(session.id, id);
        if (known) return known;
        const p = this.#ctx.state.participant(id);
        return { participant: id, handle: p.handle, state: 'offline', connection: 'offline', seq: 0, lastSeen: new Date(0).toISOString(), details: { profile: p.profile } };
      });
    });
  }

  /** The participants of this session. */
  async participants(): Promise<Array<Participant & { access: Access | null }>> {
    this.#need('participants');
    return [...this.#caller.session.members].map((id) => {
      const record = this.#ctx.state.participant(id);
      return { ...participantView(record), access: this.#ctx.access.accessOf(record) ?? null };
    });
  }

  /**
   * Changes this participant's own profile: only the fields given. Kind and
   * roles are not among them (an agent cannot make itself a human, who may
   * post in paused threads, nor drop the role that excludes it from chat);
   * they are set when joining.
   */
  updateProfile(patch: SelfProfilePatch): Promise<Participant> {
    return this.#run('profile_update', async () => {
      const fixed = REGISTERED_PROFILE_FIELDS.find((key) => typeof patch === 'object' && patch !== null && key in patch);
      if (fixed) {
        throw new ParleyError(
          'INVALID_INPUT',
          `Invalid ${fixed}: a participant's kind and roles are set when it is registered ("parley join HANDLE --kind … --role …"), not by the participant itself. Leave ${fixed} out.`,
          { field: fixed },
        );
      }
      const parsed = (await redactInput(this.#ctx, parseInput(SelfProfilePatchSchema, patch, 'profile'))).value;
      const { participant } = this.#caller;
      const updated = await transact(this.#ctx, () => ensureParticipant(this.#ctx, participant.handle, parsed));
      return participantView(updated);
    });
  }

  /**
   * The sessions this participant has joined (a session picker). Others'
   * sessions are not listed: their names and sizes are theirs.
   */
  async sessions(): Promise<Array<{ id: string; name: string; createdAt: string; participants: number }>> {
    this.#need('sessions');
    const me = this.#participantId;
    return [...this.#ctx.state.sessions.values()]
      .filter((s) => s.members.has(me))
      .map((s) => ({
        id: s.id,
        name: s.name,
        createdAt: new Date(s.createdAt).toISOString(),
        participants: s.members.size,
      }));
  }

  // Meetings ------------------------------------------------------------------

  async meetingJoin(meeting: string): Promise<MeetingView> {
    return this.#run('meeting_join', () => joinMeeting(this.#ctx, this.#caller, meeting));
  }

  async meetingLeave(meeting: string): Promise<{ left: boolean }> {
    return this.#run('meeting_leave', () => leaveMeeting(this.#ctx, this.#caller, meeting));
  }

  meetingSay(meeting: string, text: string): Promise<{ number: number; truncated: boolean; redacted: boolean }> {
    return this.#run('meeting_say', () => sayInMeeting(this.#ctx, this.#caller, this.#meetingRedactor, { meeting, text }));
  }

  async meetingHear(input: MeetingHearInput): Promise<HearView> {
    return this.#run('meeting_hear', () => hearInMeeting(this.#ctx, this.#caller, input));
  }

  async meetingWho(meeting: string): Promise<MeetingView> {
    return this.#run('meeting_who', () => meetingWho(this.#ctx, this.#caller, meeting));
  }

  /** Without `lastHeard`, unread counts from the line the hub kept for this participant. */
  async meetingStatus(meeting: string, lastHeard?: number): Promise<MeetingStatusView> {
    return this.#run('meeting_status', () => meetingStatus(this.#ctx, this.#caller, { meeting, last_heard: lastHeard }));
  }

  /** The whole retained ring, for a person reviewing the room (the page's meeting view). */
  async meetingRing(meeting: string): Promise<RingView> {
    return this.#run('meeting_ring', () => meetingRing(this.#ctx, this.#caller, meeting));
  }

  async meetings(): Promise<ReturnType<typeof listMeetings>> {
    this.#need('meetings');
    return listMeetings(this.#ctx, this.#caller);
  }
}
