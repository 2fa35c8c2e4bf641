/**
 * The frames of `/parley/history/1`, history sync between linked hubs. A
 * stream carries one question and its answer:
 *
 * - a digest: the asking hub sends `digest-ask`; the other answers with each
 *   channel the asking hub's participants may read, whether it serves its
 *   history, and per author, thread and epoch the seqs it holds;
 * - a channel's history: the asking hub sends `ask` (what it holds of each
 *   stream, the window it keeps, the size of a page); the other sends pages,
 *   one after another, the last saying no more follows; or `refused`, with
 *   why. The asking hub answers each page but the last with `taken` once it
 *   has read it, and the serving hub keeps only a few pages unanswered (a
 *   window, not a round trip a page), so that pages never pile up unread.
 *
 * Canonical CBOR tuples, length-prefixed, each at most MAX_EVENTS_FRAME_BYTES.
 */

import { z } from 'zod';
import type { ChannelDigest, HistoryAsk, HistoryPage } from '../hub/index.js';
import { ParticipantKindSchema } from '../schema/participant.js';
import { canonicalEncode } from '../trust/cbor.js';
import { EventTuple, eventOfTuple, MAX_EVENTS_PER_FRAME, parseFrame, tupleOfEvent } from './event-frames.js';

export const HISTORY_PROTOCOL = '/parley/history/1';
const DIGEST_ASK = 'parley/history-digest-ask/v1';
const DIGEST = 'parley/history-digest/v1';
const ASK = 'parley/history-ask/v1';
const PAGE = 'parley/history-page/v1';
const REFUSED = 'parley/history-refused/v1';
const TAKEN = 'parley/history-taken/v1';

/** A channel's streams in a digest or an ask, at most. */
const MAX_STREAMS = 10_000;
/** Channels in a digest, at most. */
const MAX_CHANNELS = 10_000;

const Seq = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Key = z.instanceof(Uint8Array).refine((bytes) => bytes.length === 32, 'must be a 32-byte key');
const Epoch = z.instanceof(Uint8Array).refine((bytes) => bytes.length === 16, 'must be a 16-byte epoch');
const ThreadId = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a thread id');
const Name = z.string().min(1).max(200);
/** author, thread, epoch, from, through, held */
const Stream = z.tuple([Key, ThreadId, Epoch, Seq, Seq, Seq]);
/** session, channel, policy version, allowed, streams */
const Channel = z.tuple([Name, Name, Seq, z.boolean(), z.array(Stream).max(MAX_STREAMS)]);
const Author = z.tuple([Key, z.string().min(1).max(200), ParticipantKindSchema, Key, z.string().max(200)]);

const QuestionTuple = z.union([
  z.tuple([z.literal(DIGEST_ASK), Seq]),
  z.tuple([z.literal(ASK), Name, Name, Seq, z.array(Stream).max(MAX_STREAMS), z.number().int().min(1).max(MAX_EVENTS_PER_FRAME), z.number().int().min(1024).max(8 * 1024 * 1024)]),
]);
const DigestTuple = z.tuple([z.literal(DIGEST), z.array(Channel).max(MAX_CHANNELS)]);
const AnswerTuple = z.union([
  z.tuple([z.literal(PAGE), z.array(EventTuple).max(MAX_EVENTS_PER_FRAME), z.array(Author).max(MAX_EVENTS_PER_FRAME), z.boolean()]),
  z.tuple([z.literal(REFUSED), z.string().max(1000)]),
]);

export type HistoryQuestion = { digest: { sinceTs: number } } | { ask: HistoryAsk };
export type HistoryAnswer = { page: Pick<HistoryPage, 'events' | 'authors' | 'more'> } | { refused: string };

type StreamTuple = z.output<typeof Stream>;
const tupleOfStream = (s: ChannelDigest['streams'][number]): unknown[] => [s.author, s.thread, s.epoch, s.from, s.through, s.held];
const streamOfTuple = ([author, thread, epoch, from, through, held]: StreamTuple): ChannelDigest['streams'][number] => ({ author, thread, epoch, from, through, held });

export function encodeQuestion(question: HistoryQuestion): Uint8Array {
  if ('digest' in question) return canonicalEncode([DIGEST_ASK, question.digest.sinceTs], 'history question');
  const { session, channel, sinceTs, since, maxMessages, maxBytes } = question.ask;
  return canonicalEncode([ASK, session, channel, sinceTs, since.map(tupleOfStream), maxMessages, maxBytes], 'history question');
}

export function decodeQuestion(bytes: Uint8Array): HistoryQuestion {
  const tuple = parseFrame(QuestionTuple, bytes, 'history question');
  if (tuple[0] === DIGEST_ASK) return { digest: { sinceTs: tuple[1] } };
  const [, session, channel, sinceTs, since, maxMessages, maxBytes] = tuple;
  return { ask: { session, channel, sinceTs, since: since.map(streamOfTuple), maxMessages, maxBytes } };
}

export function encodeDigest(channels: readonly ChannelDigest[]): Uint8Array {
  return canonicalEncode([DIGEST, channels.map((c) => [c.session, c.channel, c.policy, c.allowed, c.streams.map(tupleOfStream)])], 'history digest');
}

export function decodeDigest(bytes: Uint8Array): ChannelDigest[] {
  const [, channels] = parseFrame(DigestTuple, bytes, 'history digest');
  return channels.map(([session, channel, policy, allowed, streams]) => ({ session, channel, policy, allowed, streams: streams.map(streamOfTuple) }));
}

const TakenTuple = z.tuple([z.literal(TAKEN)]);

/** The asking hub read a page: the serving hub may send another. */
export function encodeTaken(): Uint8Array {
  return canonicalEncode([TAKEN], 'history taken');
}

export function decodeTaken(bytes: Uint8Array): void {
  parseFrame(TakenTuple, bytes, 'history taken');
}

export function encodeAnswer(answer: HistoryAnswer): Uint8Array {
  if ('refused' in answer) return canonicalEncode([REFUSED, answer.refused.slice(0, 1000)], 'history answer');
  const { events, authors, more } = answer.page;
  const authorTuples = authors.map((a) => [a.key, a.handle, a.kind, a.hub, a.hubName]);
  return canonicalEncode([PAGE, events.map(tupleOfEvent), authorTuples, more], 'history answer');
}

export function decodeAnswer(bytes: Uint8Array): HistoryAnswer {
  const tuple = parseFrame(AnswerTuple, bytes, 'history answer');
  if (tuple[0] === REFUSED) return { refused: tuple[1] };
  const [, events, authors, more] = tuple;
  return {
    page: {
      events: events.map(eventOfTuple),
      authors: authors.map(([key, handle, kind, hub, hubName]) => ({ key, handle, kind, hub, hubName })),
      more,
    },
  };
}
