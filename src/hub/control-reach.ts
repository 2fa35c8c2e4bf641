// Who a steering control reaches. A control lands in an inbox (and so can
// wake its reader) only when it changes what that reader may or should do:
//
// - mute, unmute, prod and invite reach the participants they name, as
//   targeted deliveries written with the control (src/hub/controls.ts);
// - pause/resume and done/reopen change what everyone in the thread may do,
//   so they reach its members like any other thread event;
// - the rest (pin, time limits, discussion mode, invited_auto, the access
//   policy) and controls aimed at someone else stay in the thread's history:
//   the hub applies them, and an agent woken for them would have nothing to do.
//
// A side channel's closing is a system event, not a control: it reaches the
// members as every thread event does.

import type { ControlKind } from '../schema/control.js';
import type { ParleyEvent } from '../schema/event.js';

const THREAD_WIDE_CONTROLS: ReadonlySet<ControlKind> = new Set<ControlKind>(['pause', 'done']);

/** Whether an untargeted control event reaches the thread's members (pause/resume, done/reopen). */
export function controlReachesMembers(event: ParleyEvent): boolean {
  if (event.type !== 'control' || event.content === null || typeof event.content !== 'object') return false;
  const kind = Object.keys(event.content)[0];
  return kind !== undefined && THREAD_WIDE_CONTROLS.has(kind as ControlKind);
}
