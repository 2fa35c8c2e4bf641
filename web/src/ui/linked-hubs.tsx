import type { LinkedHubView } from '../types.js';

const STATES: Record<LinkedHubView['state'], string> = {
  connected: 'linked',
  connecting: 'connecting',
  refused: 'refused',
  offline: 'offline',
};

/**
 * One hub this one links to, as the sidebar lists it: its name (its id
 * until its hello is read), the state of the link, and only what is not
 * zero of what waits for it, how far behind it is, what it dropped, and
 * whether the history of its participants' events here has gaps.
 */
export function LinkedHub({ hub }: { hub: LinkedHubView }) {
  const dropped = Object.values(hub.drops).reduce((sum, n) => sum + (n ?? 0), 0);
  const details = [
    ...(hub.queued > 0 ? [`${hub.queued} queued`] : []),
    ...(hub.lagSeconds > 0 ? [`behind ${hub.lagSeconds} s`] : []),
    ...(dropped > 0 ? [`${dropped} dropped`] : []),
    ...((hub.gaps ?? []).length > 0 ? ['history incomplete'] : []),
  ];
  const why = Object.entries(hub.drops)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([reason, n]) => `${n} ${reason}`)
    .join(', ');
  return (
    <li class="linked-hub" data-hub={hub.name || hub.id} data-state={hub.state} title={[hub.key, why && `dropped: ${why}`].filter(Boolean).join('\n')}>
      <bdi class="hub-name">{hub.name || hub.id}</bdi>
      <span class={`link-state link-${hub.state}`}>{STATES[hub.state]}</span>
      {details.length > 0 && <span class="link-details">{details.join(' · ')}</span>}
    </li>
  );
}
