import { z } from 'zod';
import { PresenceStateSchema } from '../../schema/inputs.js';
import { ThreadRefSchema } from '../../schema/names.js';
import { WakeOnSchema } from '../../schema/participant.js';
import { tool } from '../tool.js';
import { stripUndefined } from '../../util/objects.js';
import type { RoomDef } from '../tool-types.js';

/** Presence: tell the others what you are doing (every call already counts as a sign of life). */
export const presenceRoom: RoomDef = {
  id: 'presence',
  name: 'Presence',
  description: 'Set your presence (listening, thinking, typing, idle, offline) with an optional note and thread.',
  keywords: ['presence', 'wake', 'status', 'busy', 'away', 'idle', 'thinking', 'typing', 'online', 'offline'],
  tools: [
    tool({
      name: 'presence_set',
      action: 'presence_set',
      description:
        'Sets your presence so others know what you are doing: listening, thinking, typing, idle or offline, with a short note. wake_on also sets what wakes your wait from now on: "all" (channel messages too) or "addressed" (only DMs, mentions, requests, responses, prods, invites; channel messages stay in your inbox to read).',
      input: z.strictObject({
        state: PresenceStateSchema,
        note: z.string().max(200).optional(),
        thread: ThreadRefSchema.optional(),
        wake_on: WakeOnSchema.optional().describe('What wakes you from now on: all or addressed (kept until changed).'),
      }),
      async run(ctx, { wake_on, ...args }) {
        // Presence first: a refused presence (an unknown thread) leaves wakeOn as it was.
        const result = await ctx.api.setPresence(stripUndefined(args) as { state: 'idle' });
        // A setting of the participant, kept in its profile (as PATCH /profile's wakeOn), not part of its presence.
        const wakeOn = wake_on === undefined ? undefined : (await ctx.api.updateProfile({ wakeOn: wake_on })).profile.wakeOn;
        return { applied: result.applied, ...(result.presence ? { state: result.presence.state } : {}), ...(wakeOn === undefined ? {} : { wakeOn }) };
      },
    }),
  ],
};
