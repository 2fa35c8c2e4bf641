import { describeControl } from '../format/event-text.js';
import type { Command } from './command.js';

/**
 * The steering commands (mute, pause, pin, prod, invite, done…): each posts
 * one control to the thread's controls route and confirms it with what was
 * done, in the words history and the inbox use for the event ("resumed the
 * thread", "unpinned the thread"), never the control's kind: resume and
 * unpin send the `pause` and `pin` controls switched off.
 */
const enc = encodeURIComponent;

/** Handles given on the command line are shown as given. */
const asTyped = (handle: string): string => handle;

function steering(build: (args: string[]) => Record<string, unknown>, usage: string, summary: string, positionals: number | [number, number]): Command {
  return {
    usage,
    summary,
    positionals,
    async run(call, [thread, ...rest]) {
      const control = build(rest);
      const result = await call<{ seq: number; control: string }>('POST', `/threads/${enc(thread!)}/controls`, control);
      return { json: result, text: `${describeControl(control, asTyped)}: seq ${result.seq}` };
    },
  };
}

export const STEERING_COMMANDS: Record<string, Command> = {
  mute: steering(
    (handles) => ({ mute: { targets: handles } }),
    'parley mute THREAD HANDLE ...',
    'Hard-mute other participants in a thread (steering): their posts there fail until unmuted. To quiet a thread for yourself, use "parley quiet THREAD"',
    [2, 64],
  ),
  unmute: steering((handles) => ({ unmute: { targets: handles } }), 'parley unmute THREAD HANDLE ...', 'Lift the hard mute of participants in a thread', [2, 64]),
  pause: steering(() => ({ pause: { on: true } }), 'parley pause THREAD', 'Pause a thread for non-humans', 1),
  resume: steering(() => ({ pause: { on: false } }), 'parley resume THREAD', 'Resume a paused thread', 1),
  pin: steering(() => ({ pin: { on: true } }), 'parley pin THREAD', 'Pin a thread: retention keeps all of it', 1),
  unpin: steering(() => ({ pin: { on: false } }), 'parley unpin THREAD', 'Unpin a thread: retention prunes it again', 1),
  prod: steering((handles) => ({ prod: handles }), 'parley prod THREAD HANDLE ...', 'Prod participants to respond', [2, 64]),
  done: steering(() => ({ done: true }), 'parley done THREAD', 'Mark a thread done', 1),
  invite: steering(([handle]) => ({ invite: { participant_id: handle } }), 'parley invite THREAD HANDLE', 'Invite a participant into a thread', 2),
};
