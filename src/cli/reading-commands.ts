import { DEFAULT_CLI_HISTORY_LIMIT } from '../config/defaults.js';
import { formatAll } from './event-lines.js';
import { participantCommand, text } from './rest-command.js';

/**
 * Reading a thread: what is new since the hub-kept cursor (`parley read`,
 * which marks it read), its latest events (`parley history`, which marks
 * nothing), and full-text search. Numbers go to the hub as typed: it checks them.
 */

export const read = participantCommand(async (api, [thread], values) => {
  const limit = text(values.limit);
  const result = await api.readNew({ thread: thread!, ...(limit ? { limit } : {}) });
  const lines = await formatAll(api, result.events);
  return { json: result, text: lines.length ? lines.join('\n') + (result.more ? '\n(more: read again)' : '') : '(nothing new)', verbatim: true };
});

export const history = participantCommand(async (api, [thread], values) => {
  const result = await api.history({ thread: thread!, limit: text(values.limit) ?? DEFAULT_CLI_HISTORY_LIMIT });
  const lines = await formatAll(api, result.events);
  if (lines.length === 0) return { json: result, text: '(no history)' };
  return { json: result, text: (result.more ? '(earlier events not shown: raise --limit)\n' : '') + lines.join('\n'), verbatim: true };
});

export const search = participantCommand(async (api, [query], values) => {
  const thread = text(values.thread);
  const result = await api.search({ query: query!, ...(thread ? { thread } : {}) });
  return { json: result, text: result.events.length ? (await formatAll(api, result.events)).join('\n') : '(no match)', verbatim: true };
});
