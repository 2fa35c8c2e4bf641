import type { Roster } from '../schema/roster.js';
import { trustSummary } from '../format/trust-summary.js';
import { pendingDraftNotice } from '../trust/roster-draft.js';
import { verifyRosterSignature } from '../trust/roster.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { ROSTER_OPTIONS } from './command-options.js';
import { noExtra, placeOf, rosterHelp, say } from './roster-args.js';
import type { HubRoster } from '../client/hub-admin.js';

/**
 * `parley roster show`: the roster file (the signed version in force, or
 * the one a hub would start on) and, when one is pending, the draft: what it
 * changes and how to put it in force or drop it.
 */
export const rosterShow: CommandRun<typeof ROSTER_OPTIONS> = { help: rosterHelp('show'), run: showRoster };

async function showRoster({ values, positionals }: CommandArgs<typeof ROSTER_OPTIONS>): Promise<number> {
  noExtra(positionals, 0, 'parley roster show');
  const place = placeOf(values);
  const hub = await place.hub();
  const pending = await place.draft();
  const inForce = await place.inForce();
  // A draft left in the roster file by an earlier version is the draft, not the roster.
  const onFile = place.hasFile() && pending?.file !== place.file ? place.read() : undefined;
  const roster = onFile ?? inForce;
  const names = await place.handles();
  const named = (key: string): string => (names.has(key) ? `  ${names.get(key)}` : '');
  const signaturesOf = (doc: Roster) => doc.signatures.map((s) => ({ ...s, valid: verifyRosterSignature(doc, s) }));
  const signatureLines = (doc: Roster): string[] => signaturesOf(doc).map((s) => `  ${s.valid ? 'valid' : 'INVALID'}  ${s.pubkey}${named(s.pubkey)}`);

  const lines: string[] = [];
  if (!roster) {
    const who = (hub?.participants ?? []).map((p) => `  ${String(p.access).padEnd(9)} @${p.handle} (${p.kind})`);
    lines.push(`trust: ${hub ? trustSummary(hub.trust) : 'local mode (no roster)'}`, `no roster file at ${place.file}${pending ? '' : '; make one with "parley roster init --org ID"'}`);
    if (who.length) lines.push('access now:', ...who);
  } else {
    lines.push(
      `roster ${roster.org_id} v${roster.version} (${roster.timestamp}) at ${place.file}`,
      `  ${stateOf(roster, hub, inForce)}`,
      `members (${roster.members.length}):`,
      ...roster.members.map((m) => `  ${m.role.padEnd(9)} ${m.pubkey}${named(m.pubkey) || (m.kind === 'hub' ? '  a hub' : '')}${m.archive ? '  archive' : ''}`),
      `signatures (${roster.signatures.length}):`,
      ...signatureLines(roster),
    );
  }
  const changes = pending ? changesOf(roster, pending.roster, named) : [];
  if (pending) {
    lines.push(
      `pending: ${pendingDraftNotice(pending.roster, pending.file, inForce)}`,
      ...(changes.length ? [`draft changes (${changes.length}):`, ...changes] : ['draft changes: none (the same members and roles)']),
      `draft signatures (${pending.roster.signatures.length}):`,
      ...signatureLines(pending.roster),
    );
  }
  say(
    values,
    {
      file: place.file,
      roster: roster ?? null,
      inForce: roster !== undefined && inForce?.version === roster.version && inForce.org_id === roster.org_id,
      signatures: roster ? signaturesOf(roster) : [],
      trust: hub?.trust ?? null,
      ...(roster ? {} : { participants: hub?.participants ?? [] }),
      draft: pending ? { file: pending.file, roster: pending.roster, signatures: signaturesOf(pending.roster), changes } : null,
    },
    lines.join('\n'),
  );
  return 0;
}

/** Whether the roster shown is the one in force, and where. */
function stateOf(roster: Roster, hub: HubRoster | undefined, inForce: Roster | undefined): string {
  const isInForce = inForce !== undefined && inForce.version === roster.version && inForce.org_id === roster.org_id;
  if (roster.signatures.length === 0) return 'unsigned, not in force: sign it with "parley roster sign"';
  if (hub) {
    if (isInForce) return 'in force on the running hub';
    if (hub.trust.mode === 'roster') return `not in force (the running hub has v${hub.trust.version})`;
    return 'not in force (the running hub is in local mode): "parley roster sign" hands it over';
  }
  return isInForce ? 'the version in force (no hub runs on this home; "parley serve" starts on it)' : 'no hub runs on this home';
}

/** What the draft changes from the roster, a line per member: "+" added, "-" removed, else the new role (and the old one). */
function changesOf(base: Roster | undefined, draft: Roster, named: (key: string) => string): string[] {
  const before = new Map((base?.members ?? []).map((m) => [m.pubkey, m]));
  const after = new Map(draft.members.map((m) => [m.pubkey, m]));
  const lines: string[] = [];
  for (const m of draft.members) {
    const old = before.get(m.pubkey);
    const line = `${m.role.padEnd(9)} ${m.pubkey}${named(m.pubkey)}${m.archive ? '  archive' : ''}`;
    if (!old) lines.push(`  + ${line}`);
    else if (old.role !== m.role || (old.archive === true) !== (m.archive === true)) lines.push(`  ~ ${line}  (was ${old.role}${old.archive ? ', archive' : ''})`);
  }
  for (const m of base?.members ?? []) if (!after.has(m.pubkey)) lines.push(`  - ${m.role.padEnd(9)} ${m.pubkey}${named(m.pubkey)}`);
  return lines;
}
