import { existsSync } from 'node:fs';
import path from 'node:path';
import { resolveHome } from '../config/home.js';
import { participantCommand, text } from './rest-command.js';

/** Who is who: the participant itself (`parley whoami`) and everyone's presence in the session (`parley who`). */

export const whoami = participantCommand(async (api, _args, values) => {
  const me = await api.whoami();
  // The REST answer names the key as rosters write it too (ed25519:…), beside the raw publicKey.
  const { pubkey } = me.participant as typeof me.participant & { pubkey: string };
  // A participant registered at this home has its private key here (custodial); the path is shown, never the key.
  const keyFile = path.join(resolveHome(text(values.home)), 'keys', 'participants', `${me.participant.id}.key`);
  const held = existsSync(keyFile);
  const trust = me.trust.mode === 'roster' ? `roster ${me.trust.org ?? ''} v${me.trust.version ?? ''}` : 'local mode (no roster)';
  const lines = [
    `@${me.participant.handle} · ${me.participant.id} (${me.participant.profile.kind}, session "${me.session.name}")`,
    `access:  ${me.access ?? 'none: not in the roster'} (${trust})`,
    ...(me.participant.profile.roles.length > 0 ? [`profile roles: ${me.participant.profile.roles.join(', ')} (descriptive; they grant nothing)`] : []),
    ...(values.key === true ? [`pubkey:  ${pubkey}`, `key:     ${held ? `${keyFile} (held by this home's hub, which signs for you)` : 'not held in this home'}`] : []),
  ];
  const json = values.key === true ? { ...me, pubkey, keyFile: held ? keyFile : null } : me;
  return { json, text: lines.join('\n') };
});

export const who = participantCommand(async (api) => {
  const presence = await api.who();
  // What they declared shows only when it says more than being there (listening) or not (offline).
  const declared = (p: (typeof presence)[number]): string => (p.state === 'listening' || p.state === 'offline' ? '' : `, ${p.state}`) + (p.note ? ` — ${p.note}` : '');
  return {
    json: { presence },
    text: presence
      .map((p) => `@${p.handle.padEnd(16)} ${p.connection.padEnd(9)} ${p.details.profile.kind}${p.details.profile.client ? ` (${p.details.profile.client})` : ''}${p.hub === undefined ? '' : ` on hub ${p.hub}`}${declared(p)}`)
      .join('\n'),
  };
});
