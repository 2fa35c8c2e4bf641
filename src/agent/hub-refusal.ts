/**
 * How the agent loop reads a hub call's failure: a hub gone away is waited
 * for; a participant the hub refuses for good ends the loop; anything else
 * counts as one failure of a row.
 */

import { ParleyError } from '../errors/parley-error.js';
import { hubClosed, refused } from '../middleware/chat-feed.js';

/** The hub went away: it does not answer, or it refuses the token (revoked, or another hub on that address). */
export function hubAway(error: unknown): error is ParleyError {
  return hubClosed(error) || refused(error);
}

/** The hub refuses every call of the participant until an admin adds its key to the roster: no retry helps. */
export function outOfRoster(error: unknown): error is ParleyError {
  return error instanceof ParleyError && error.code === 'NOT_IN_ROSTER';
}
