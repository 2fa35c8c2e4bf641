/**
 * Steering: hard mute, pause, prod, invite, done and the thread's participation
 * policy, for admins only (the room is not listed to anyone else; side channels
 * are in the chat room). Nested in the chat room:
 * `room_load {room: "chat", with_children: true}` brings it too. Every control
 * is an event in the thread, authored by you.
 */

import { z } from 'zod';
import { ParleyError } from '../../errors/parley-error.js';
import { describeControl } from '../../format/event-text.js';
import type { ControlResult } from '../../hub/index.js';
import type { ControlInput } from '../../schema/control.js';
import { HandleSchema, ThreadRefSchema } from '../../schema/names.js';
import { ProfilePatchSchema } from '../../schema/participant.js';
import { tool } from '../tool.js';
import type { RoomDef, ToolContext } from '../tool-types.js';

const Thread = ThreadRefSchema.describe('The thread to steer (name or id).');
const Targets = z.array(HandleSchema).min(1).max(64).describe('Participant handles.');
const Selectors = z.array(z.string().min(1).max(128)).max(256);

/** `action` says what was done ("resumed the thread"), as history shows it: `control` is the kind sent, `pause` for a resume too. */
async function control(ctx: ToolContext, thread: string, input: ControlInput): Promise<Record<string, unknown>> {
  const result: ControlResult = await ctx.api.control(thread, input);
  return { id: result.id, seq: result.seq, control: result.control, action: describeControl(input as Record<string, unknown>, (handle) => handle) };
}

export const steerRoom: RoomDef = {
  id: 'steer',
  name: 'Steering',
  description: 'Steer a thread: hard-mute or unmute participants, pause/resume agents, pin (keep from retention), prod, invite, mark done, set the discussion policy or a channel access policy (admins).',
  keywords: ['steer', 'mute', 'unmute', 'pause', 'resume', 'pin', 'unpin', 'retention', 'keep', 'prod', 'nudge', 'invite', 'done', 'policy', 'discussion', 'access', 'readers', 'writers', 'acl', 'moderate', 'control', 'silence', 'stop', 'admin'],
  parent: 'chat',
  tools: [
    tool({
      name: 'steer_mute',
      action: 'steer',
      description: 'Hard-mutes participants in a thread: their next posts there fail until unmuted.',
      input: z.strictObject({ thread: Thread, participants: Targets }),
      async run(ctx, { thread, participants }) {
        return control(ctx, thread, { mute: { targets: participants, mode: 'hard' } });
      },
    }),
    tool({
      name: 'steer_unmute',
      action: 'steer',
      description: 'Lifts a hard mute.',
      input: z.strictObject({ thread: Thread, participants: Targets }),
      async run(ctx, { thread, participants }) {
        return control(ctx, thread, { unmute: { targets: participants } });
      },
    }),
    tool({
      name: 'steer_pause',
      action: 'steer',
      description: 'Pauses a thread: agents cannot post in it until it is resumed (humans still can).',
      input: z.strictObject({ thread: Thread }),
      async run(ctx, { thread }) {
        return control(ctx, thread, { pause: { on: true } });
      },
    }),
    tool({
      name: 'steer_resume',
      action: 'steer',
      description: 'Resumes a paused thread.',
      input: z.strictObject({ thread: Thread }),
      async run(ctx, { thread }) {
        return control(ctx, thread, { pause: { on: false } });
      },
    }),
    tool({
      name: 'steer_pin',
      action: 'steer',
      description: 'Pins a thread: retention keeps its whole history (unpinned threads lose events past the retention limits).',
      input: z.strictObject({ thread: Thread }),
      async run(ctx, { thread }) {
        return control(ctx, thread, { pin: { on: true } });
      },
    }),
    tool({
      name: 'steer_unpin',
      action: 'steer',
      description: 'Unpins a thread: retention prunes it again like any other.',
      input: z.strictObject({ thread: Thread }),
      async run(ctx, { thread }) {
        return control(ctx, thread, { pin: { on: false } });
      },
    }),
    tool({
      name: 'steer_access',
      action: 'steer',
      description:
        "Sets a channel's access policy (signed with your key): who may read it, who may post in it, its admins, and how long it keeps history. " +
        'Each list names "@handle", "ed25519:…" or a role (observer, member, operator, admin: that role and above); an empty list admits no one; a list left out keeps its current value. ' +
        'Side channels follow their parent channel; DMs take none. The role table still applies on top (an observer never posts).',
      input: z.strictObject({
        thread: ThreadRefSchema.describe('The channel (name or id).'),
        readers: Selectors.optional().describe('Who may read the channel.'),
        writers: Selectors.optional().describe('Who may post in the channel (and its side channels).'),
        admins: Selectors.optional().describe('The channel\'s admins: admins of the hub only ("admin" or their handles).'),
        retention_hours: z.number().int().min(1).optional().describe('Keep events this many hours (default 72).'),
        retention_messages: z.number().int().min(1).optional().describe('Keep at most this many events (default 10000).'),
        allow_history_fetch: z.boolean().optional().describe('Whether peers may fetch its history (default true).'),
      }),
      async run(ctx, { thread, ...policy }) {
        return control(ctx, thread, { access: policy });
      },
    }),
    tool({
      name: 'steer_prod',
      action: 'steer',
      description: 'Prods participants to respond in a thread (a high-priority item in their inbox that wakes them).',
      input: z.strictObject({ thread: Thread, participants: Targets }),
      async run(ctx, { thread, participants }) {
        return control(ctx, thread, { prod: participants });
      },
    }),
    tool({
      name: 'steer_invite',
      action: 'steer',
      description: 'Invites a participant into a thread, optionally with the profile they should act in there (e.g. a role).',
      input: z.strictObject({ thread: Thread, participant: HandleSchema, profile: ProfilePatchSchema.optional() }),
      async run(ctx, { thread, participant, profile }) {
        return control(ctx, thread, { invite: { participant_id: participant, ...(profile ? { profile } : {}) } });
      },
    }),
    tool({
      name: 'steer_done',
      action: 'steer',
      description: 'Marks a thread done (or not done again).',
      input: z.strictObject({ thread: Thread, done: z.boolean().optional().describe('Default true.') }),
      async run(ctx, { thread, done }) {
        return control(ctx, thread, { done: done ?? true });
      },
    }),
    tool({
      name: 'steer_policy',
      action: 'steer',
      description:
        'Sets a thread\'s participation policy: discussion mode (agents may answer each other; allow_agent_mentions lets agents wake agents), invited_auto, or a ttl in seconds for its messages (null clears it). Give one or more.',
      input: z.strictObject({
        thread: Thread,
        discussion: z.boolean().optional(),
        allow_agent_mentions: z.boolean().optional(),
        invited_auto: z.boolean().optional(),
        ttl_seconds: z.number().int().min(1).max(365 * 24 * 3600).nullable().optional(),
      }),
      async run(ctx, { thread, discussion, allow_agent_mentions, invited_auto, ttl_seconds }) {
        const controls: ControlInput[] = [];
        if (discussion !== undefined || allow_agent_mentions !== undefined) {
          controls.push({ discussion: { on: discussion ?? true, ...(allow_agent_mentions === undefined ? {} : { allow_agent_mentions }) } });
        }
        if (invited_auto !== undefined) controls.push({ invited_auto: { on: invited_auto } });
        if (ttl_seconds !== undefined) controls.push({ ttl_seconds });
        if (controls.length === 0) {
          throw new ParleyError(
            'INVALID_INPUT',
            'Invalid policy: give at least one of discussion, allow_agent_mentions, invited_auto, ttl_seconds.',
            { field: 'discussion' },
          );
        }
        const applied = [];
        for (const input of controls) applied.push(await control(ctx, thread, input));
        return { applied };
      },
    }),
  ],
};
