import { effect } from '@preact/signals';
import { openMeeting, openThread, runSearch } from './open-view.js';
import { view, type View } from './view-state.js';

/**
 * The open view in the address (`#thread=<id>`, `#meeting=<name>`,
 * `#requests`, `#search=<words>`), so a reload keeps the person's place and a
 * thread can be bookmarked or shared with someone on the same hub.
 */
export function hashOf(v: View): string {
  switch (v.kind) {
    case 'thread':
      return `#thread=${encodeURIComponent(v.id)}`;
    case 'meeting':
      return `#meeting=${encodeURIComponent(v.name)}`;
    case 'requests':
      return '#requests';
    case 'for-you':
      return '#for-you';
    case 'search':
      return `#search=${encodeURIComponent(v.query)}`;
    default:
      return '';
  }
}

/** Opens the view the address names; false when it names none. */
export async function openFromHash(hash: string): Promise<boolean> {
  const match = /^#(thread|meeting|search)=(.+)$/.exec(hash);
  if (match) {
    const value = decodeURIComponent(match[2]!);
    if (match[1] === 'thread') await openThread(value);
    else if (match[1] === 'meeting') await openMeeting(value);
    else await runSearch(value);
    return true;
  }
  if (hash === '#requests' || hash === '#for-you') {
    view.value = { kind: hash === '#requests' ? 'requests' : 'for-you' };
    return true;
  }
  return false;
}

/** Keeps the address in step with the view (without adding history entries for every click). */
let following: (() => void) | undefined;

export function followViewInAddress(): () => void {
  following ??= effect(() => {
    const hash = hashOf(view.value);
    if (hash && hash !== location.hash) history.replaceState(null, '', hash);
  });
  return following;
}
