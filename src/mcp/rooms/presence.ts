import { z } from 'zod';
import { PresenceStateSchema } from '../../schema/inputs.js';
import { ThreadRefSchema } from '../../schema/names.js';
import { tool } from '../tool.js';
import { stripUndefined } from '../../util/objects.js';
import type { RoomDef } from './registry.js';

/** Presence: tell the others what you are doing (every call already counts as a sign of life). */
export const presenceRoom: RoomDef = {
  id: 'presence',
  name: 'Presence',
  description: 'Set your presence (listening, thinking, typing, idle, offline) with an optional note and thread.',
  keywords: ['presence', 'status', 'busy', 'away', 'idle', 'thinking', 'typing', 'online', 'offline'],
  tools: [
    tool({
      name: 'presence_set',
      description: 'Sets your presence so others know what you are doing: listening, thinking, typing, idle or offline, with a short note.',
      input: z.strictObject({
        state: PresenceStateSchema,
        note: z.string().max(200).optional(),
        thread: ThreadRefSchema.optional(),
      }),
      async run(ctx, args) {
        const result = await ctx.api.setPresence(stripUndefined(args) as { state: 'idle' });
        return { applied: result.applied, ...(result.presence ? { state: result.presence.state } : {}) };
      },
    }),
  ],
};
