import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, type McpTestClient } from '../helpers/mcp.js';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { fileSnapshot } from '../helpers/store-snapshot.js';

/**
 * Tool arguments are author text like any other: over Streamable HTTP, the
 * official SDK client sends a NUL or an unpaired surrogate as a JSON escape,
 * and every tool that stores text refuses it as a tool error naming the
 * argument, storing nothing.
 */
let hub: RunningHub;
let home: string;
let cleanup: () => void = () => undefined;
let coder: McpTestClient;
let openRequest: string;

beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  hub = await startServe(home, { env: { PARLEY_MCP_COMPAT: 'true' } });
  const coderToken = await joinOver(hub, { handle: 'coder', session: 'proj' });
  const reviewerToken = await joinOver(hub, { handle: 'reviewer', session: 'proj' });
  coder = await connectHttp(hub.url, coderToken, '?rooms=all');
  const reviewer = await connectHttp(hub.url, reviewerToken, '?rooms=all');
  const asked = await reviewer.call('request_send', { to: 'coder', intent: 'review' });
  openRequest = asked.value.request_id as string;
  await reviewer.close();
  await coder.call('meeting_join', { meeting: 'standup' });
  await coder.call('katra_who_is_here');
}, 30_000);

afterAll(async () => {
  await coder?.close();
  await stopHubs();
  cleanup();
});

const NUL = 'before\u0000after';
const LONE = 'before\ud800after';

describe('mcp tool arguments', () => {
  it('text - a NUL or an unpaired surrogate in any text argument is a tool error naming the argument; nothing is stored', async () => {
    const before = fileSnapshot(path.join(home, 'parley.db'));
    const cases: Array<[tool: string, args: Record<string, unknown>, field: string]> = [
      ['chat_post', { text: NUL }, 'text'],
      ['chat_post', { text: LONE }, 'text'],
      ['chat_post', { text: 'fine', tags: [NUL] }, 'tags.0'],
      ['chat_dm', { to: 'reviewer', text: LONE }, 'text'],
      ['side_open', { title: NUL }, 'title'],
      ['request_send', { to: 'reviewer', intent: 'review', params: { file: LONE } }, 'params.file'],
      ['request_send', { to: 'reviewer', intent: 'review', text: NUL }, 'text'],
      ['request_respond', { request_id: openRequest, status: 'Completed', result: { [NUL]: 1 } }, 'result'],
      ['presence_set', { state: 'thinking', note: NUL }, 'note'],
      ['steer_invite', { thread: 'general', participant: 'zoe', profile: { nickname: LONE } }, 'profile.nickname'],
      ['meeting_say', { meeting: 'standup', text: NUL }, 'text'],
      ['katra_say', { content: LONE }, 'content'],
      ['send_message', { target: '#general', body: NUL }, 'body'],
      ['send_request', { target: 'reviewer', intent: 'review', params: [LONE] }, 'params.0'],
    ];
    const answers: string[] = [];
    for (const [tool, args] of cases) {
      const result = await coder.call(tool, args);
      answers.push(`${tool}: ${result.isError ? result.text : 'accepted'}`);
    }
    const named = cases.map(([tool, , field]) => expect.stringMatching(new RegExp(`^${tool}: INVALID_INPUT: Invalid ${field.replace('.', '\\.')}: (has a key that )?contains (the control character U\\+0000|an unpaired surrogate U\\+D800)`)));
    expect(answers).toEqual(named);
    expect(fileSnapshot(path.join(home, 'parley.db'))).toEqual(before);
  }, 30_000);
});
