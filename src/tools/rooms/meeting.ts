/**
 * Meetings: an ephemeral room in memory only, a ring of the last messages
 * numbered from 1. `meeting_hear` returns what others said since the line the
 * hub kept for the participant (or after `last_heard` when given; your own are
 * skipped) and `messages_lost` when the ring overwrote some of it. The kept
 * line is the hub's, so REST and the CLI share it.
 */

import { z } from 'zod';
import { MeetingNameSchema } from '../../schema/inputs.js';
import { tool } from '../tool.js';
import type { RoomDef } from '../tool-types.js';

const Meeting = MeetingNameSchema.describe('The meeting\'s name, e.g. "standup".');

export const meetingRoom: RoomDef = {
  id: 'meeting',
  name: 'Meetings',
  description: 'Ephemeral meeting rooms kept in memory: join, say, hear what others said since last time, who is here, status.',
  keywords: ['meeting', 'meet', 'standup', 'room', 'say', 'hear', 'listen', 'sync', 'huddle', 'ephemeral', 'katra'],
  tools: [
    tool({
      name: 'meeting_join',
      action: 'meeting_join',
      description: 'Joins a meeting (created on first join) and returns who is in it.',
      input: z.strictObject({ meeting: Meeting }),
      async run(ctx, { meeting }) {
        const view = await ctx.api.meetingJoin(meeting);
        return { meeting: view.name, who: view.who.map((w) => w.handle) };
      },
    }),
    tool({
      name: 'meeting_leave',
      action: 'meeting_leave',
      description: 'Leaves a meeting.',
      input: z.strictObject({ meeting: Meeting }),
      async run(ctx, { meeting }) {
        return ctx.api.meetingLeave(meeting);
      },
    }),
    tool({
      name: 'meeting_say',
      action: 'meeting_say',
      description: 'Says something to everyone in the meeting (you join it if needed). Returns the message number.',
      input: z.strictObject({ meeting: Meeting, text: z.string().min(1) }),
      async run(ctx, { meeting, text }) {
        const said = await ctx.api.meetingSay(meeting, text);
        return { number: said.number, ...(said.truncated ? { truncated: true } : {}), ...(said.redacted ? { redacted: true } : {}) };
      },
    }),
    tool({
      name: 'meeting_hear',
      action: 'meeting_hear',
      description:
        'What others said that you have not heard yet (the hub keeps your place; your own are skipped). messages_lost: true means the ring dropped messages you had not heard. last_heard is the number you have now heard up to.',
      input: z.strictObject({
        meeting: Meeting,
        last_heard: z.number().int().min(0).optional().describe('Hear after this message number instead (0: from the oldest kept). Default: where you last stopped.'),
        limit: z.number().int().min(1).max(1000).optional(),
      }),
      // Not read-only: hearing moves the participant's last-heard line on the hub, as chat_read moves its cursor.
      async run(ctx, { meeting, last_heard, limit }) {
        const heard = await ctx.api.meetingHear({ meeting, ...(last_heard === undefined ? {} : { last_heard }), ...(limit === undefined ? {} : { limit }) });
        return {
          messages: heard.messages.map((m) => ({ number: m.number, speaker: m.speaker, ts: m.ts, text: m.content })),
          messages_lost: heard.messages_lost,
          last_heard: heard.last_heard,
        };
      },
    }),
    tool({
      name: 'meeting_who',
      action: 'meeting_who',
      description: 'Who is in a meeting, with their role and when they joined.',
      input: z.strictObject({ meeting: Meeting }),
      readOnly: true,
      async run(ctx, { meeting }) {
        const view = await ctx.api.meetingWho(meeting);
        return { meeting: view.name, who: view.who };
      },
    }),
    tool({
      name: 'meeting_status',
      action: 'meeting_status',
      description:
        'A meeting at a glance: members, oldest and latest message numbers kept, and how many you have not heard (since where you last stopped, or since last_heard when given).',
      input: z.strictObject({ meeting: Meeting, last_heard: z.number().int().min(0).optional() }),
      readOnly: true,
      async run(ctx, { meeting, last_heard }) {
        return ctx.api.meetingStatus(meeting, last_heard);
      },
    }),
    tool({
      name: 'meeting_list',
      action: 'meetings',
      description: 'The meetings of the session, with how many are in each and the latest message number.',
      input: z.strictObject({}),
      readOnly: true,
      async run(ctx) {
        return { meetings: (await ctx.api.meetings()).map((m) => ({ name: m.name, active: m.active, latest: m.latest })) };
      },
    }),
  ],
};
