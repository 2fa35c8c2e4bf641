import { z } from 'zod';
import { ChannelPolicySchema } from './channel-policy.js';
import { CONTROL_VALUE_SCHEMAS } from './control.js';
import { ProfilePatchSchema } from './participant.js';
import { PublicKeyTextSchema } from './roster.js';
import {
  ChannelNameSchema,
  HandleSchema,
  ParticipantRefSchema,
  SeqSchema,
  TagSchema,
  ThreadRefSchema,
  ThreadTitleSchema,
  UlidSchema,
} from './names.js';
import { DELIVERY_STATES } from './delivery.js';
import { RequestStatusSchema } from './event.js';
import { JsonTextValueSchema, TextSchema, multiLineText, oneLineText } from './text.js';
import { MAX_INBOX_LIMIT, MAX_READ_LIMIT } from './limits.js';

/**
 * Inputs of every operation an actor (a participant in a session) can perform.
 * The author is never an input: it is always the actor.
 */

/** Text is bounded by the hub's maxInputChars at run time; this refuses non-strings and what is not text (see text.ts). */
const Text = TextSchema;

export const PostInputSchema = z.strictObject({
  thread: ThreadRefSchema,
  text: Text,
  to: ParticipantRefSchema.optional(),
  reply_to: UlidSchema.optional(),
  tags: z.array(TagSchema).max(16).optional(),
});
export type PostInput = z.input<typeof PostInputSchema>;

export const DmInputSchema = z.strictObject({
  to: ParticipantRefSchema,
  text: Text,
  reply_to: UlidSchema.optional(),
  tags: z.array(TagSchema).max(16).optional(),
});
export type DmInput = z.input<typeof DmInputSchema>;

export const CreateChannelInputSchema = z.strictObject({
  name: ChannelNameSchema,
  members: z.array(ParticipantRefSchema).max(256).optional(),
});
export type CreateChannelInput = z.input<typeof CreateChannelInputSchema>;

export const RenameThreadInputSchema = z.strictObject({
  thread: ThreadRefSchema,
  name: z.string().check(oneLineText),
});
export type RenameThreadInput = z.input<typeof RenameThreadInputSchema>;

export const OpenSideInputSchema = z.strictObject({
  parent: ThreadRefSchema,
  title: ThreadTitleSchema,
  from_event: UlidSchema.optional(),
  members: z.array(ParticipantRefSchema).max(256).optional(),
});
export type OpenSideInput = z.input<typeof OpenSideInputSchema>;

export const CloseSideInputSchema = z.strictObject({
  thread: ThreadRefSchema,
  summary: z.string().trim().min(1, 'must not be empty: say what the side channel concluded').check(multiLineText),
});
export type CloseSideInput = z.input<typeof CloseSideInputSchema>;

export const ReadNewInputSchema = z.strictObject({
  thread: ThreadRefSchema,
  limit: z.number().int().min(1).max(MAX_READ_LIMIT).optional(),
});
export type ReadNewInput = z.input<typeof ReadNewInputSchema>;

export const HistoryInputSchema = z.strictObject({
  thread: ThreadRefSchema,
  before: SeqSchema.optional(),
  after: SeqSchema.optional(),
  limit: z.number().int().min(1).max(MAX_READ_LIMIT).optional(),
});
export type HistoryInput = z.input<typeof HistoryInputSchema>;

export const SearchInputSchema = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty').max(500),
  thread: ThreadRefSchema.optional(),
  limit: z.number().int().min(1).max(MAX_READ_LIMIT).optional(),
});
export type SearchInput = z.input<typeof SearchInputSchema>;

export const InboxInputSchema = z.strictObject({
  limit: z.number().int().min(1).max(MAX_INBOX_LIMIT).optional(),
});
export type InboxInput = z.input<typeof InboxInputSchema>;

/**
 * An injection may look first and take later (the LLM middleware): `peek`
 * returns what it would inject and marks nothing; `take` (the seqs a peek
 * answered) takes exactly those items once the model call succeeded —
 * nothing posted meanwhile, nothing that only became waking meanwhile.
 */
export const InjectInputSchema = InboxInputSchema.extend({
  peek: z.boolean().optional(),
  take: z.array(SeqSchema).min(1, 'must name at least one seq').max(MAX_INBOX_LIMIT).optional(),
}).refine((input) => !(input.peek && input.take), { message: 'peek looks and take takes: give one of them', path: ['take'] });
export type InjectInput = z.input<typeof InjectInputSchema>;

export const WaitInputSchema = z.strictObject({
  timeout_ms: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(MAX_INBOX_LIMIT).optional(),
  /** Return the inbox as it is, marking nothing (a loop that then injects what woke it). */
  peek: z.boolean().optional(),
});
export type WaitInput = z.input<typeof WaitInputSchema>;

export const AckInputSchema = z.strictObject({
  ids: z.array(UlidSchema).min(1, 'must name at least one event id').max(1000),
});
export type AckInput = z.input<typeof AckInputSchema>;

export const SubscriptionInputSchema = z.strictObject({
  thread: ThreadRefSchema,
  state: z.enum(['subscribed', 'muted', 'unsubscribed']),
});
export type SubscriptionInput = z.input<typeof SubscriptionInputSchema>;

export const RequestInputSchema = z.strictObject({
  to: ParticipantRefSchema,
  intent: z.string().trim().min(1, 'must not be empty').max(128).check(oneLineText),
  params: JsonTextValueSchema.optional(),
  text: Text.optional(),
  thread: ThreadRefSchema.optional(),
  reply_to: z.string().trim().min(1).max(64).check(oneLineText).optional(),
  request_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8-64 letters, digits, "_" or "-"')
    .optional(),
});
export type RequestInput = z.input<typeof RequestInputSchema>;

export const RespondInputSchema = z.strictObject({
  request_id: z.string().trim().min(1).max(64).check(oneLineText),
  status: RequestStatusSchema,
  result: JsonTextValueSchema.optional(),
  text: Text.optional(),
});
export type RespondInput = z.input<typeof RespondInputSchema>;

export const PRESENCE_STATES = ['listening', 'thinking', 'typing', 'idle', 'offline'] as const;
export const PresenceStateSchema = z.enum(PRESENCE_STATES);
export type PresenceState = z.infer<typeof PresenceStateSchema>;

export const PresenceInputSchema = z.strictObject({
  state: PresenceStateSchema,
  /** The sender's own counter; an update with a lower or equal seq than the last one is ignored. */
  seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  thread: ThreadRefSchema.optional(),
  note: z.string().max(200).check(oneLineText).optional(),
});
export type PresenceInput = z.input<typeof PresenceInputSchema>;


export const ExportInputSchema = z.strictObject({
  thread: ThreadRefSchema,
  /** markdown for people, jsonl for programs, signed for `parley verify` (src/trust/signed-export.ts). */
  format: z.enum(['markdown', 'jsonl', 'signed']).default('markdown'),
});
export type ExportInput = z.input<typeof ExportInputSchema>;

/** An event its author signed elsewhere: the v1 CBOR tuple and its signature, both base64url (src/trust/envelope.ts). */
export const EnvelopeInputSchema = z.strictObject({
  envelope: z.string().min(1, 'must not be empty').regex(/^[A-Za-z0-9_-]+$/, 'must be the CBOR bytes in base64url without padding'),
  sig: z.string().regex(/^[A-Za-z0-9_-]{86}$/, 'must be a 64-byte Ed25519 signature in base64url without padding'),
});
export type EnvelopeInput = z.input<typeof EnvelopeInputSchema>;

/**
 * An envelope a linked hub hands in (src/peer): as one an author hands in,
 * with the thread of this hub it is taken into when its author signed it for
 * the thread of the same name on the origin hub (whose id is another).
 */
export const PeerEnvelopeInputSchema = EnvelopeInputSchema.extend({ thread: UlidSchema.optional() });
export type PeerEnvelopeInput = z.input<typeof PeerEnvelopeInputSchema>;

export const LiveFilterInputSchema = z.strictObject({
  thread: ThreadRefSchema.optional(),
  inbox: z.boolean().optional(),
  since: SeqSchema.optional(),
  ephemeral: z.boolean().optional(),
});
export type LiveFilterInput = z.input<typeof LiveFilterInputSchema>;

/** A list of deliveries: one state, `unacknowledged` (delivered or injected), or `all`; optionally only those in it for at least older_than_ms. */
export const DeliveriesInputSchema = z.strictObject({
  state: z.enum([...DELIVERY_STATES, 'unacknowledged', 'all']).default('delivered'),
  older_than_ms: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(MAX_INBOX_LIMIT).default(100),
});
export type DeliveriesInput = z.input<typeof DeliveriesInputSchema>;

export const MeetingNameSchema = z.string().trim().min(1).max(64).check(oneLineText);
export const MeetingSayInputSchema = z.strictObject({ meeting: MeetingNameSchema, text: Text });
/** Without `last_heard`, the hub hears and counts from the line it kept for the participant. */
export const MeetingHearInputSchema = z.strictObject({
  meeting: MeetingNameSchema,
  last_heard: SeqSchema.optional(),
  limit: z.number().int().min(1).max(MAX_READ_LIMIT).optional(),
});
export const MeetingStatusInputSchema = z.strictObject({ meeting: MeetingNameSchema, last_heard: SeqSchema.optional() });
export type MeetingHearInput = z.input<typeof MeetingHearInputSchema>;

/**
 * What a request's author signed as its content, when it comes signed from
 * another hub (src/peer): the form the hub stores a request in, every field
 * as it was sent (a signed request cannot be tidied or redacted).
 */
export const SignedRequestContentSchema = z.strictObject({
  request_id: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8-64 letters, digits, "_" or "-"'),
  intent: z.string().min(1, 'must not be empty').max(128).check(oneLineText),
  params: JsonTextValueSchema,
  reply_to: z.string().min(1).max(64).check(oneLineText).optional(),
  hop: z.number().int().min(0),
  text: Text.optional(),
});

/** What a response's author signed as its content, when it comes signed from another hub. */
export const SignedResponseContentSchema = z.strictObject({
  request_id: z.string().min(1).max(64).check(oneLineText),
  status: RequestStatusSchema,
  result: JsonTextValueSchema.optional(),
  text: Text.optional(),
});

/** A participant as a stored control names it: by id. */
const ParticipantIdSchema = z.string().regex(/^p_[a-z2-7]{26}$/, 'must be a participant id, "p_" and 26 base32 characters');

const ParticipantIds = z.array(ParticipantIdSchema).min(1).max(64);

/**
 * What a control's author signed as its content, when it comes signed from
 * another hub: every control kind, in the form the hub stores it
 * (participants by id; an access policy with its signer's signature).
 */
export const SignedControlContentSchema = z.union([
  z.strictObject({ pause: z.strictObject({ on: z.boolean() }) }),
  z.strictObject({ done: z.boolean() }),
  z.strictObject({ pin: z.strictObject({ on: z.boolean() }) }),
  z.strictObject({ mute: z.strictObject({ targets: ParticipantIds, mode: z.literal('hard') }) }),
  z.strictObject({ unmute: z.strictObject({ targets: ParticipantIds }) }),
  z.strictObject({ prod: ParticipantIds }),
  z.strictObject({ ttl_seconds: CONTROL_VALUE_SCHEMAS.ttl_seconds }),
  z.strictObject({ discussion: z.strictObject({ on: z.boolean(), allow_agent_mentions: z.boolean() }) }),
  z.strictObject({ invited_auto: z.strictObject({ on: z.boolean() }) }),
  z.strictObject({ invite: z.strictObject({ participant_id: ParticipantIdSchema, handle: HandleSchema, profile: ProfilePatchSchema.optional() }) }),
  z.strictObject({ access: z.strictObject({ policy: ChannelPolicySchema, signer: PublicKeyTextSchema, sig: z.string().regex(/^[A-Za-z0-9_-]{86}$/, 'must be an Ed25519 signature in base64url') }) }),
]);
export type SignedControlContent = z.output<typeof SignedControlContentSchema>;
export const CROSSING_CONTROLS: readonly string[] = ['pause', 'done', 'pin', 'mute', 'unmute'];
