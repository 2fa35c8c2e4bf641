import { inboxFooter, inboxLines } from './event-lines.js';
import { participantCommand, text } from './rest-command.js';

/**
 * The inbox: what needs the participant's attention, by priority (`parley
 * inbox`, --peek to look without marking read), waiting for it (`parley
 * wait`), and acknowledging direct items (`parley ack`).
 */

export const inbox = participantCommand(async (api, _args, values) => {
  const limit = text(values.limit);
  const input = limit ? { limit } : {};
  const result = values.peek ? await api.peek(input) : await api.inbox(input);
  if (result.items.length === 0) return { json: result, text: '(inbox empty)' };
  const lines = await inboxLines(api, result.items);
  return { json: result, text: `${lines.join('\n')}\n${inboxFooter(result.items.length, values.peek === true, result.more)}`, verbatim: true };
});

export const wait = participantCommand(async (api, _args, values) => {
  const timeout = text(values.timeout);
  const result = await api.wait(timeout ? { timeout_ms: timeout } : {});
  if (result.items.length === 0) return { json: result, text: '(nothing arrived)' };
  const lines = await inboxLines(api, result.items);
  return { json: result, text: `${lines.join('\n')}\n${inboxFooter(result.items.length, false, result.more)}`, verbatim: true };
});

export const ack = participantCommand(async (api, ids) => {
  const result = await api.ack({ ids });
  return { json: result, text: `acknowledged ${result.acknowledged}` };
});
