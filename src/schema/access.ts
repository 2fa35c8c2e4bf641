import { z } from 'zod';

/**
 * A participant's permission role, called `access` everywhere so it is never
 * confused with the profile's free-text `roles` (planner, reviewer), which
 * grant nothing. Ordered: each level may do everything the ones before it may.
 *   observer: reads; member: also writes; operator: also sends requests;
 *   admin: also manages the roster, channel access policies and steering.
 */
export const ACCESS_LEVELS = ['observer', 'member', 'operator', 'admin'] as const;
export const AccessSchema = z.enum(ACCESS_LEVELS);
export type Access = z.output<typeof AccessSchema>;

/** Whether `have` is at least `need`. */
export function accessAtLeast(have: Access, need: Access): boolean {
  return ACCESS_LEVELS.indexOf(have) >= ACCESS_LEVELS.indexOf(need);
}
