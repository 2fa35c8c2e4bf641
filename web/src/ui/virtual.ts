import { Virtualizer, elementScroll, observeElementOffset, observeElementRect, type VirtualizerOptions } from '@tanstack/virtual-core';
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';

type Options = Omit<VirtualizerOptions<HTMLDivElement, HTMLElement>, 'observeElementRect' | 'observeElementOffset' | 'scrollToFn' | 'onChange'>;

/**
 * A virtualized list for Preact on TanStack's framework-free core: only the
 * rows in view (plus a few) are in the DOM, each measured as it renders, so a
 * thread of ten thousand messages scrolls as lightly as one of ten.
 */
export function useVirtualizer(options: Options): Virtualizer<HTMLDivElement, HTMLElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const resolved: VirtualizerOptions<HTMLDivElement, HTMLElement> = {
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    ...options,
    onChange: () => rerender(undefined),
  };
  const [instance] = useState(() => new Virtualizer(resolved));
  instance.setOptions(resolved);
  useLayoutEffect(() => instance._didMount(), []);
  useLayoutEffect(() => instance._willUpdate());
  return instance;
}
