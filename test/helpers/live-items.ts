import type { LiveItem } from '../../src/hub/index.js';

/** Reads `n` items of a hub live subscription (fewer if it ends first). */
export async function takeItems(iterator: AsyncIterator<LiveItem>, n: number): Promise<LiveItem[]> {
  const out: LiveItem[] = [];
  while (out.length < n) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

/** The next item of a live subscription that is not presence (which comes and goes with connections), or its end. */
export async function nextSkippingPresence(iterator: AsyncIterator<LiveItem>): Promise<IteratorResult<LiveItem>> {
  for (;;) {
    const item = await iterator.next();
    if (item.done || item.value.kind !== 'presence') return item;
  }
}
