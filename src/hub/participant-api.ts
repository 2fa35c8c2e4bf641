import type { Access } from '../schema/access.js';
import type { ControlInput } from '../schema/control.js';
import type { ParleyEvent } from '../schema/event.js';
import type {
  AckInput,
  CloseSideInput,
  CreateChannelInput,
  DmInput,
  EnvelopeInput,
  HistoryInput,
  DeliveriesInput,
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
import type { Participant, SelfProfilePatch, WakeOn } from '../schema/participant.js';

import type { HearView, MeetingStatusView, MeetingView, OpenRequest, PresenceInfo, ThreadInfo, TrustMode } from '../schema/views.js';
import type { AckResult, ControlResult, HistoryResult, InboxResult, IngestResult, InjectResult, PostResult, ReadNewResult, RequestResult, ResponseResult, SentDelivery, SideClosed, SideOpened, WaitResult } from './answers.js';

/**
 * What one participant in one session can do, as promises. The hub's `Actor`
 * implements it in process; `RestParticipant` (src/client) implements it over
 * the REST API. The MCP tools are written against this interface only, so the
 * same tools serve an agent connected to the hub's /mcp and one connected
 * through `parley mcp` on stdio.
 */
export interface ParticipantApi {
  /**
   * `wakeOn`: what wakes this participant now (its own choice, else the hub's default); `access`: its permission role
   * (null: a roster is in force and its key is not in it); `trust`: local mode, or the roster in force.
   */
  whoami(): Promise<{ participant: Participant; session: { id: string; name: string }; wakeOn: WakeOn; access: Access | null; trust: TrustMode }>;
  updateProfile(patch: SelfProfilePatch): Promise<Participant>;
  participants(): Promise<Participant[]>;

  post(input: PostInput): Promise<PostResult>;
  /** Hands in a message its author signed itself: stored as signed, or refused (src/hub/ingest.ts). */
  ingest(input: EnvelopeInput): Promise<IngestResult>;
  dm(input: DmInput): Promise<PostResult>;
  threads(): Promise<ThreadInfo[]>;
  createChannel(input: CreateChannelInput): Promise<ThreadInfo>;
  renameThread(input: RenameThreadInput): Promise<ThreadInfo>;
  openSide(input: OpenSideInput): Promise<SideOpened>;
  closeSide(input: CloseSideInput): Promise<SideClosed>;
  subscribe(thread: string): Promise<ThreadInfo>;
  unsubscribe(thread: string): Promise<ThreadInfo>;
  mute(thread: string): Promise<ThreadInfo>;

  readNew(input: ReadNewInput): Promise<ReadNewResult>;
  history(input: HistoryInput): Promise<HistoryResult>;
  search(input: SearchInput): Promise<{ events: ParleyEvent[] }>;

  inbox(input?: InboxInput): Promise<InboxResult>;
  peek(input?: InboxInput): Promise<InboxResult>;
  wait(input?: WaitInput, signal?: AbortSignal): Promise<WaitResult>;
  ack(input: AckInput): Promise<AckResult>;
  /** New waking items not yet given to the caller, each once (targeted ones become injected); `peek` looks without taking, `take` takes exactly the items a peek showed. */
  inject(input?: InjectInput): Promise<InjectResult>;
  /** Per-recipient delivery states of what the caller sent. */
  sentDeliveries(input?: DeliveriesInput): Promise<SentDelivery[]>;

  control(thread: string, control: ControlInput): Promise<ControlResult>;

  request(input: RequestInput): Promise<RequestResult>;
  respond(input: RespondInput): Promise<ResponseResult>;
  openRequests(): Promise<{ incoming: OpenRequest[]; outgoing: OpenRequest[] }>;

  setPresence(input: PresenceInput): Promise<{ applied: boolean; presence: PresenceInfo | undefined }>;
  who(): Promise<PresenceInfo[]>;

  meetings(): Promise<Array<{ id: string; name: string; active: number; latest: number }>>;
  meetingJoin(meeting: string): Promise<MeetingView>;
  meetingLeave(meeting: string): Promise<{ left: boolean }>;
  meetingSay(meeting: string, text: string): Promise<{ number: number; truncated: boolean; redacted: boolean }>;
  meetingHear(input: MeetingHearInput): Promise<HearView>;
  meetingWho(meeting: string): Promise<MeetingView>;
  meetingStatus(meeting: string, lastHeard?: number): Promise<MeetingStatusView>;
}
