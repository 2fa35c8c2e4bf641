import { z } from 'zod';
import { MIN_REQUEST_ID_ABBREVIATION } from '../../hub/index.js';
import { RequestStatusSchema } from '../../schema/event.js';
import { HandleSchema, ThreadRefSchema } from '../../schema/names.js';
import { tool } from '../tool.js';
import { stripUndefined } from '../../util/objects.js';
import type { RoomDef } from '../tool-types.js';

/**
 * Requests and responses: a passive ask with an intent and parameters, answered
 * Accepted (still open), Rejected, Completed or Failed. A request made while
 * handling another carries reply_to; past the hop limit the hub refuses it.
 */
export const requestsRoom: RoomDef = {
  id: 'requests',
  name: 'Requests',
  description: 'Ask a participant (an agent or the human) to do or decide something and get a structured answer; answer requests sent to you.',
  keywords: ['request', 'ask', 'question', 'approve', 'approval', 'decision', 'blocked', 'respond', 'answer', 'reply', 'task', 'delegate', 'human'],
  tools: [
    tool({
      name: 'request_send',
      action: 'request_send',
      description:
        'Sends a request to a participant: intent (a short verb phrase like "review" or "approve-plan"), params (any JSON), optional text. Use this, not chat, when you are blocked or need a decision from the human. Their answer arrives in your inbox.',
      input: z.strictObject({
        to: HandleSchema,
        intent: z.string().min(1).max(128),
        params: z.unknown().optional().describe('Any JSON the recipient needs (keep it small; reference files).'),
        text: z.string().optional(),
        thread: ThreadRefSchema.optional().describe('Where the request is posted (default: a DM with the recipient).'),
        reply_to: z.string().min(1).max(64).optional().describe('The request_id you are handling, if this request serves it (hops are counted); an unambiguous start or end of it will do.'),
      }),
      async run(ctx, args) {
        const sent = await ctx.api.request(stripUndefined(args) as { to: string; intent: string });
        return { request_id: sent.request_id, id: sent.id, seq: sent.seq, hop: sent.hop };
      },
    }),
    tool({
      name: 'request_respond',
      action: 'request_respond',
      description: 'Answers a request sent to you: Accepted (working on it; stays open), Rejected, Completed (with result) or Failed.',
      input: z.strictObject({
        request_id: z.string().min(1).max(64).describe(`The request's id, or an unambiguous start or end of it (at least ${MIN_REQUEST_ID_ABBREVIATION} characters).`),
        status: RequestStatusSchema,
        result: z.unknown().optional(),
        text: z.string().optional(),
      }),
      async run(ctx, args) {
        const answered = await ctx.api.respond(stripUndefined(args) as { request_id: string; status: 'Accepted' });
        return { request_id: answered.request_id, id: answered.id, seq: answered.seq, status: answered.status };
      },
    }),
    tool({
      name: 'requests_open',
      action: 'open_requests',
      description: 'Requests still open: incoming (waiting for your answer) and outgoing (you wait for theirs).',
      input: z.strictObject({}),
      readOnly: true,
      async run(ctx) {
        return ctx.api.openRequests();
      },
    }),
  ],
};
