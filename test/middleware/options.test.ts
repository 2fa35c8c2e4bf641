import { describe, expect, it } from 'vitest';
import { parleyMiddleware, withParley } from '../../src/middleware/index.js';
import { caught } from '../helpers/hub.js';

/**
 * Bad options are refused when the middleware or the wrapper is made —
 * INVALID_INPUT naming the option — not at the first model call. Nothing
 * reaches a hub (the URL given is one nothing serves).
 */
const url = 'http://127.0.0.1:9';

const bad: Array<[field: string, options: Record<string, unknown>]> = [
  ['handle', { handle: 'not a handle!' }],
  ['handle', { url }],
  ['url', { handle: 'bot', url: 'ftp://127.0.0.1/hub' }],
  ['url', { handle: 'bot', url: 'not a url' }],
  ['token', { handle: 'bot', token: '' }],
  ['maxNewMessages', { handle: 'bot', maxNewMessages: 0 }],
  ['maxNewMessages', { handle: 'bot', maxNewMessages: 2.5 }],
  ['maxNewMessages', { handle: 'bot', maxNewMessages: 501 }],
  ['chatTools', { handle: 'bot', chatTools: 'chat_post' }],
  ['chatTools.0', { handle: 'bot', chatTools: [''] }],
  ['hubTimeoutMs', { handle: 'bot', hubTimeoutMs: 0 }],
  ['hubTimeoutMs', { handle: 'bot', hubTimeoutMs: '5s' }],
  ['log', { handle: 'bot', log: 'stderr' }],
  ['log', { handle: 'bot', log: true }],
  ['handel', { handle: 'bot', handel: 'bot' }],
];

describe('options', () => {
  for (const [field, options] of bad) {
    it(`bad options - ${JSON.stringify(options)} is INVALID_INPUT naming ${field}, for parleyMiddleware and withParley alike`, async () => {
      for (const make of [() => parleyMiddleware(options as never), () => withParley(async (r: unknown) => r, options as never)]) {
        const error = await caught(make);
        expect(error).toMatchObject({ code: 'INVALID_INPUT', field });
        expect(error.message).toMatch(new RegExp(`^Invalid ${field.replace('.', '\\.')}`));
      }
    });
  }

  it('bad options - withParley needs a function to wrap, and function-valued inject and toolCalls', async () => {
    expect(await caught(() => withParley('gpt' as never, { handle: 'bot' }))).toMatchObject({ code: 'INVALID_INPUT', field: 'llmCall' });
    expect(await caught(() => withParley(async (r: unknown) => r, { handle: 'bot', inject: 'messages' as never }))).toMatchObject({ code: 'INVALID_INPUT', field: 'inject' });
    expect(await caught(() => withParley(async (r: unknown) => r, { handle: 'bot', toolCalls: [] as never }))).toMatchObject({ code: 'INVALID_INPUT', field: 'toolCalls' });
  });
});
