import { ParleyError } from '../errors/parley-error.js';

/**
 * A hub that hangs (its process stopped, a network that drops packets) must
 * not hold the agent's model call: what the middleware asks the hub is
 * awaited at most `ms`, then counts as a hub that did not answer (HUB_CLOSED),
 * and the call goes on without chat. What it asked may still land later;
 * that is harmless — a peek marks nothing, and a late commit takes only what
 * the call was shown.
 */
export function answerWithin<T>(asked: Promise<T>, ms: number, url: string | undefined): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ParleyError('HUB_CLOSED', `The hub${url === undefined ? '' : ` at ${url}`} did not answer within ${ms} ms.`)), ms);
  });
  return Promise.race([asked, late]).finally(() => clearTimeout(timer));
}
