import { ParleyError } from '../errors/parley-error.js';

/**
 * A hub that hangs (its process stopped, a network that drops packets) must
 * not hold the agent's model call: what the middleware asks the hub is
 * awaited at most `ms`, then counts as a hub that did not answer (HUB_CLOSED),
 * and the call goes on without chat. A request given as a function of a
 * signal is aborted then; another may still land later, which is harmless — a peek marks nothing, and a late commit takes only what
 * the call was shown.
 */
export function answerWithin<T>(asked: Promise<T> | ((signal: AbortSignal) => Promise<T>), ms: number, url: string | undefined): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  // A request that can be aborted is, so that nothing of it stays in flight (a program could not end until it did).
  const abort = new AbortController();
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Settled first, so that the race ends with this, not with the abort's own rejection.
      reject(new ParleyError('HUB_CLOSED', `The hub${url === undefined ? '' : ` at ${url}`} did not answer within ${ms} ms.`));
      abort.abort();
    }, ms);
  });
  const answer = typeof asked === 'function' ? asked(abort.signal) : asked;
  answer.catch(() => {
    // Its rejection is the race's below (or, once aborted, the timeout's): not an unhandled one.
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}
