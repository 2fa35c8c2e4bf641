import os from 'node:os';
import type { Config } from '../config/schema.js';

/** This hub's name for its peers: peers.name, else the machine's host name (its first label, in the characters a name allows). */
export function hubNameOf(config: Pick<Config, 'peers'>): string {
  if (config.peers.name) return config.peers.name;
  const label = os.hostname().split('.')[0]!.replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return label.slice(0, 64) || 'hub';
}
