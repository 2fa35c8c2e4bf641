import { describeControl } from '../format/event-text.js';
import type { ControlInput } from '../schema/control.js';
import type { CommandRun } from './command.js';
import { participantCommand } from './rest-command.js';

/**
 * The steering commands (mute, pause, pin, prod, invite, done…): each posts
 * one control to the thread's controls route and confirms it with what was
 * done, in the words history and the inbox use for the event ("resumed the
 * thread", "unpinned the thread"), never the control's kind: resume and
 * unpin send the `pause` and `pin` controls switched off.
 */

/** Handles given on the command line are shown as given. */
const asTyped = (handle: string): string => handle;

/** One steering command: the control built from the handles given after the thread. */
function steering(build: (handles: string[]) => Record<string, unknown>): CommandRun {
  return participantCommand(async (api, [thread, ...rest]) => {
    const control = build(rest);
    // The hub checks the control against its schema.
    const result = await api.control(thread!, control as ControlInput);
    return { json: result, text: `${describeControl(control, asTyped)}: seq ${result.seq}` };
  });
}

export const mute = steering((handles) => ({ mute: { targets: handles } }));
export const unmute = steering((handles) => ({ unmute: { targets: handles } }));
export const pause = steering(() => ({ pause: { on: true } }));
export const resume = steering(() => ({ pause: { on: false } }));
export const pin = steering(() => ({ pin: { on: true } }));
export const unpin = steering(() => ({ pin: { on: false } }));
export const prod = steering((handles) => ({ prod: handles }));
export const done = steering(() => ({ done: true }));
export const invite = steering(([handle]) => ({ invite: { participant_id: handle } }));
