/**
 * Meetings keep no cursor in the hub, so the page remembers in this browser
 * (localStorage, per session and person) the newest meeting line the person
 * has seen; the unread counts come from it.
 */

import { me, meetingSeen } from './view-state.js';

const seenKey = () => `parley.meetingSeen.${me.value?.session.id ?? ''}.${me.value?.participant.handle ?? ''}`;

/** Reads what this person has seen, for the session just loaded. */
export function loadMeetingSeen(): void {
  try {
    meetingSeen.value = JSON.parse(localStorage.getItem(seenKey()) ?? '{}') as Record<string, number>;
  } catch {
    meetingSeen.value = {};
  }
}

/** The person has seen the meeting up to line `latest`. */
export function seeMeeting(name: string, latest: number): void {
  if ((meetingSeen.value[name] ?? 0) >= latest) return;
  meetingSeen.value = { ...meetingSeen.value, [name]: latest };
  try {
    localStorage.setItem(seenKey(), JSON.stringify(meetingSeen.value));
  } catch {
    // Storage full or off: counts reset with the page, nothing else is lost.
  }
}
