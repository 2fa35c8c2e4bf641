import { signal } from '@preact/signals';

/** A clock for relative times: one tick every 30 s re-renders every "5 min ago" on the page. */
const now = signal(Date.now());
setInterval(() => (now.value = Date.now()), 30_000);

const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function relativeTime(iso: string, at: number): string {
  const seconds = Math.round((new Date(iso).getTime() - at) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86_400), 'day');
}

/** Relative time on the page, the exact time on hover and for assistive technology. */
export function Time({ iso }: { iso: string }) {
  const exact = absolute.format(new Date(iso));
  return (
    <time dateTime={iso} title={exact} aria-label={exact}>
      {relativeTime(iso, now.value)}
    </time>
  );
}
