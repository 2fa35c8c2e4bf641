import { shortRequestId } from '../format/event-text.js';
import { jsonFlag, participantCommand, text } from './rest-command.js';

/** Requests: sending one (`parley request`) and answering one (`parley respond`). */

export const request = participantCommand(async (api, [to, intent], values) => {
  const params = jsonFlag(values.params, 'params');
  const [words, thread, replyTo] = [text(values.text), text(values.thread), text(values['reply-to'])];
  const result = await api.request({
    to: to!,
    intent: intent!,
    ...(params === undefined ? {} : { params }),
    ...(words ? { text: words } : {}),
    ...(thread ? { thread } : {}),
    ...(replyTo ? { reply_to: replyTo } : {}),
  } as Parameters<typeof api.request>[0]);
  const short = shortRequestId(result.request_id);
  return { json: result, text: `request ${short} sent (hop ${result.hop}${short === result.request_id ? '' : `; full id ${result.request_id}`})` };
});

export const respond = participantCommand(async (api, [id, status], values) => {
  const words = text(values.text);
  const result = await api.respond({
    request_id: id!,
    // The hub names the statuses it takes when given another.
    status: status as Parameters<typeof api.respond>[0]['status'],
    ...(words ? { text: words } : {}),
    ...(values.result === undefined ? {} : { result: jsonFlag(values.result, 'result') }),
  });
  return { json: result, text: `responded ${result.status} to ${shortRequestId(result.request_id)}` };
});
