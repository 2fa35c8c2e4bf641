import { participantCommand, text } from './rest-command.js';

/** Posting: a message to a thread (`parley say`), or a direct message (`parley dm`). */

export const say = participantCommand(async (api, [thread, words], values) => {
  const to = text(values.to);
  const replyTo = text(values['reply-to']);
  const result = await api.post({ thread: thread!, text: words!, ...(to ? { to } : {}), ...(replyTo ? { reply_to: replyTo } : {}) });
  return { json: result, text: `posted: seq ${result.seq}, id ${result.id}${result.truncated ? ' [truncated]' : ''}${result.redacted ? ' [redacted]' : ''}` };
});

export const dm = participantCommand(async (api, [to, words]) => {
  const result = await api.dm({ to: to!, text: words! });
  return { json: result, text: `sent: seq ${result.seq}, id ${result.id}` };
});
