/**
 * The tag that marks a coordinator notice ("coordinator:finished"). Apart
 * from the notices' texts, so the trigger rules and the loop guard can skip
 * notices without depending on how notices are written.
 */

import type { ParleyEvent } from '../schema/event.js';

export const NOTICE_TAG_PREFIX = 'coordinator:';

/** Whether `event` is one of the coordinator's notices: it asks no one to answer, and is no turn of an exchange. */
export function isCoordinatorNotice(event: ParleyEvent): boolean {
  return (event.meta?.tags ?? []).some((tag) => tag.startsWith(NOTICE_TAG_PREFIX));
}
