/**
 * Compatibility tool names, so prompts written for other agent-chat systems
 * work unchanged: the katra_* meeting tools (one meeting, `mcp.compatMeeting`),
 * the comms tools (send_message, send_request, …), and chat_post / chat_read
 * (the chat room's own tools, listed here too). Available when `mcp.compat` is
 * on.
 */

import { z } from 'zod';
import { RequestStatusSchema } from '../../schema/event.js';
import { PRESENCE_STATES, type PresenceState } from '../../schema/inputs.js';
import { multiLineText } from '../../schema/text.js';
import { ParleyError } from '../../errors/parley-error.js';
import { tool } from '../tool.js';
import { changeSubscription, chatPost, chatRead } from './chat.js';
import type { RoomDef } from '../tool-types.js';

const Channel = z.string().min(1).max(128).describe('A channel name (a leading # is ignored).');
const bare = (name: string): string => name.replace(/^[#@]/, '');

/** The comms tools' presence states (Online, Away, Offline) map onto Parley's; Parley's own are accepted as they are. */
function presenceOf(state: string): PresenceState {
  const lower = state.toLowerCase();
  if (lower === 'online' || lower === 'active') return 'listening';
  if (lower === 'away' || lower === 'standby') return 'idle';
  if ((PRESENCE_STATES as readonly string[]).includes(lower)) return lower as PresenceState;
  throw new ParleyError('INVALID_INPUT', `Invalid state: "${state}"; use Online, Away or Offline (or ${PRESENCE_STATES.join(', ')}).`, { field: 'state' });
}

const subscription = (name: 'subscribe' | 'unsubscribe' | 'mute' | 'unmute') =>
  tool({
    name,
    action: name === 'mute' ? 'self_mute' : name === 'unmute' ? 'subscribe' : name,
    description: `Meerkat's ${name}(channel): ${name === 'mute' ? 'messages stay in your inbox at low priority and never wake you' : name === 'unsubscribe' ? 'stop receiving a channel' : 'receive a channel\'s messages in your inbox'}.`,
    input: z.strictObject({ channel: Channel }),
    async run(ctx, { channel }) {
      const thread = bare(channel);
      const info = await changeSubscription(ctx.api, thread, name === 'unmute' ? 'subscribe' : name);
      return { channel: info.name, subscription: info.subscription };
    },
  });

export const compatRoom: RoomDef = {
  id: 'compat',
  name: 'Compatibility names',
  description: "The tool names of Katra (katra_say, katra_hear, …), Meerkat (send_message, send_request, …) and Maestro (chat_post, chat_read), for prompts written for them.",
  keywords: ['compat', 'katra', 'meerkat', 'maestro', 'alias', 'legacy'],
  requiredStates: ['compat'],
  tools: [
    tool({
      name: 'katra_say',
      action: 'meeting_say',
      description: 'Katra: say something in the meeting room (all present will hear it).',
      // The text is checked here too, so that a refusal names this tool's argument rather than the library's `text`.
      input: z.strictObject({ content: z.string().min(1).check(multiLineText).describe('What to say') }),
      async run(ctx, { content }) {
        const said = await ctx.api.meetingSay(ctx.settings.compatMeeting, content);
        return { success: true, message_number: said.number };
      },
    }),
    tool({
      name: 'katra_hear',
      action: 'meeting_hear',
      description:
        'Katra: hear the next message from someone else after last_heard (0: the oldest kept; default: where you last stopped, kept by the hub); messages_lost when you fell behind.',
      input: z.strictObject({ last_heard: z.number().int().min(0).optional() }),
      async run(ctx, { last_heard }) {
        const heard = await ctx.api.meetingHear({ meeting: ctx.settings.compatMeeting, ...(last_heard === undefined ? {} : { last_heard }), limit: 1 });
        const message = heard.messages[0];
        if (!message) return { status: 'no_new_messages', messages_lost: heard.messages_lost };
        return { message_number: message.number, speaker_name: message.speaker, timestamp: message.ts, content: message.content, messages_lost: heard.messages_lost };
      },
    }),
    tool({
      name: 'katra_who_is_here',
      action: 'meeting_who',
      description: 'Katra: who is in the meeting room.',
      input: z.strictObject({}),
      readOnly: true,
      async run(ctx) {
        const view = await ctx.api.meetingWho(ctx.settings.compatMeeting);
        return { cis: view.who.map((w) => ({ name: w.handle, role: w.role, joined_at: w.joinedAt })) };
      },
    }),
    tool({
      name: 'katra_meeting_status',
      action: 'meeting_status',
      description: 'Katra: how many are here, the oldest and latest message numbers, and how many you have not heard since last_heard (default: where you last stopped).',
      input: z.strictObject({ last_heard: z.number().int().min(0).optional() }),
      readOnly: true,
      async run(ctx, { last_heard }) {
        const status = await ctx.api.meetingStatus(ctx.settings.compatMeeting, last_heard);
        return { active_ci_count: status.active, oldest_message_number: status.oldest, latest_message_number: status.latest, unread_count: status.unread };
      },
    }),
    tool({
      name: 'send_message',
      action: 'post',
      description: 'Meerkat: send a message to a channel ("#general" or "general") or, with "@handle", a direct message.',
      input: z.strictObject({ target: z.string().min(1).max(128), body: z.string().min(1).check(multiLineText) }),
      async run(ctx, { target, body }) {
        const sent = target.startsWith('@') ? await ctx.api.dm({ to: bare(target), text: body }) : await ctx.api.post({ thread: bare(target), text: body });
        return { id: sent.id, seq: sent.seq };
      },
    }),
    tool({
      name: 'send_request',
      action: 'request_send',
      description: 'Meerkat: send a request with an intent and params to a peer; the response arrives in your inbox.',
      input: z.strictObject({ target: z.string().min(1).max(64), intent: z.string().min(1).max(128), params: z.unknown().optional() }),
      async run(ctx, { target, intent, params }) {
        const sent = await ctx.api.request({ to: bare(target), intent, ...(params === undefined ? {} : { params }) });
        return { request_id: sent.request_id, hop: sent.hop };
      },
    }),
    tool({
      name: 'send_response',
      action: 'request_respond',
      description: 'Meerkat: reply to a request with a status (Accepted, Rejected, Completed, Failed) and a result.',
      input: z.strictObject({ request_id: z.string().min(1).max(64), status: RequestStatusSchema, result: z.unknown().optional() }),
      async run(ctx, { request_id, status, result }) {
        const answered = await ctx.api.respond({ request_id, status, ...(result === undefined ? {} : { result }) });
        return { id: answered.id, status: answered.status };
      },
    }),
    tool({
      name: 'set_presence',
      action: 'presence_set',
      description: 'Meerkat: set your presence (Online, Away, Offline).',
      input: z.strictObject({ state: z.string().min(1).max(32) }),
      async run(ctx, { state }) {
        const result = await ctx.api.setPresence({ state: presenceOf(state) });
        return { applied: result.applied };
      },
    }),
    subscription('subscribe'),
    subscription('unsubscribe'),
    subscription('mute'),
    subscription('unmute'),
    chatPost,
    chatRead,
  ],
};
