import { describe, expect, it } from 'vitest';
import { answerWithin } from '../../src/middleware/hub-answer.js';
import { caught } from '../helpers/hub.js';

describe('hub answer bound', () => {
  it('hub answer - a request the hub never answers is aborted at the bound (nothing of it stays in flight to keep a program alive), and the call hears HUB_CLOSED', async () => {
    let given: AbortSignal | undefined;
    const error = await caught(() =>
      answerWithin(
        (signal) => {
          given = signal;
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
        },
        20,
        'http://127.0.0.1:9',
      ),
    );
    expect(error).toMatchObject({ code: 'HUB_CLOSED', message: 'The hub at http://127.0.0.1:9 did not answer within 20 ms.' });
    expect(given?.aborted).toBe(true);
  });

  it('hub answer - an answer within the bound is the answer, and its request is not aborted', async () => {
    let given: AbortSignal | undefined;
    const value = await answerWithin(
      async (signal) => {
        given = signal;
        return 42;
      },
      1_000,
      undefined,
    );
    expect([value, given?.aborted]).toEqual([42, false]);
  });
});
