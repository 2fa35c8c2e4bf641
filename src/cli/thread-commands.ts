import { participantCommand, text } from './rest-command.js';

/** The session's threads (`parley threads`) and `parley thread create|rename|side|close`. */

export const threads = participantCommand(async (api) => {
  const result = await api.threadList();
  return {
    json: result,
    text: result.threads
      .map((t) => `${t.kind.padEnd(8)} ${(t.kind === 'channel' ? `#${t.name}` : t.with ? `@${t.with}${t.withHub ? ` on ${t.withHub}` : ''}` : t.name).padEnd(28)} ${String(t.unread ?? 0).padStart(4)} unread${t.paused ? '  [paused]' : ''}${t.closed ? '  [closed]' : ''}  ${t.id}`)
      .join('\n'),
  };
});

const members = (value: unknown): string[] | undefined => (Array.isArray(value) ? (value as string[]) : undefined);

export const threadCreate = participantCommand(async (api, [name], values) => {
  const given = members(values.member);
  const result = await api.createChannel({ name: name!, ...(given ? { members: given } : {}) });
  return { json: result, text: `created #${result.name} (${result.id})` };
});

export const threadRename = participantCommand(async (api, [thread, name]) => {
  const result = await api.renameThread({ thread: thread!, name: name! });
  return { json: result, text: `renamed to ${result.name}` };
});

export const threadSide = participantCommand(async (api, [parent, title], values) => {
  const from = text(values.from);
  const given = members(values.member);
  const result = await api.openSide({ parent: parent!, title: title!, ...(from ? { from_event: from } : {}), ...(given ? { members: given } : {}) });
  return { json: result, text: `opened side channel "${result.name}" (${result.id})` };
});

export const threadClose = participantCommand(async (api, [thread, summary]) => {
  const result = await api.closeSide({ thread: thread!, summary: summary! });
  return { json: result, text: `closed; summary posted in the parent: seq ${result.summary_seq}` };
});
