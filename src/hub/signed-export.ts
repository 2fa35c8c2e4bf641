import type { Roster } from '../schema/roster.js';
import { signedFieldsOfRow } from '../store/signed-fields.js';
import { eventFieldsToJson } from '../trust/envelope.js';
import { ExportSealer } from '../trust/export-seal.js';
import { formatPublicKey, hubIdOf } from '../trust/node-id.js';
import { EXPORT_ROSTER_DOMAIN, signRoster } from '../trust/roster.js';
import type { HubContext } from './context.js';
import { rowPages, type ThreadExport } from './export-pages.js';
import type { Caller } from './records.js';
import type { ParticipantRecord, ThreadRecord } from './records.js';
import { keyTextOf, rawKeyOf } from './participant-key.js';

/**
 * A thread as a signed export (format in src/schema/signed-export.ts): the
 * header, the rosters its events were written under, every event with its
 * signed fields and signature, then the trailer. The header and the trailer
 * are signed now by the hub's key (src/trust/export-seal.ts), so the thread's
 * name, its authors' handles and which events the file holds are vouched for
 * too. Never a private key: the events' signatures were made when they were
 * written.
 */
export function signedExport(ctx: HubContext, caller: Caller, thread: ThreadRecord, upTo: number): ThreadExport {
  const rawKeyOfId = (participantId: string): Buffer => rawKeyOf(ctx.state.participant(participantId));
  return {
    contentType: 'application/x-ndjson',
    chunks: (async function* () {
      // Signatures are stored just after their events (src/hub/signature-pipeline.ts): wait for those up to upTo.
      await ctx.sealer.settled();
      const hub = ctx.keys.hub();
      const orgRosters = ctx.rosters.chain();
      const authors = ctx.store.events.authorsOf(thread.id, upTo).map((id) => ctx.state.participant(id));
      const seal = new ExportSealer(hub, {
        mode: orgRosters.length > 0 ? 'roster' : 'local',
        thread: { id: thread.id, name: thread.name, kind: thread.kind, ...signedAs(ctx.store.events.signedThreadsOf(thread.id, upTo)) },
        authors: authors.map((p) => ({ key: keyTextOf(p), handle: p.handle })),
        exported_at: new Date(ctx.now()).toISOString(),
      });
      yield `${seal.header()}\n`;
      for (const roster of orgRosters) yield `${seal.line({ type: 'roster', scope: 'org', roster })}\n`;
      if (ctx.store.events.hasUnrostered(thread.id, upTo)) yield `${seal.line({ type: 'roster', scope: 'local', roster: localRoster(ctx, authors) })}\n`;
      for await (const rows of rowPages(ctx, caller, thread, upTo)) {
        yield rows
          .map((row) =>
            seal.line({
              type: 'event',
              seq: row.seq,
              author: row.author,
              roster_version: row.roster_version,
              event: eventFieldsToJson(signedFieldsOfRow(row, rawKeyOfId)),
              sig: ctx.store.events.signatureOf(row)?.toString('base64url') ?? null,
            }),
          )
          .map((text) => `${text}\n`)
          .join('');
      }
      yield `${seal.trailer()}\n`;
    })(),
  };
}

/** The header's `signed_as`, only when the thread holds events signed for another id (so exports of a lone hub are as before). */
function signedAs(ids: string[]): { signed_as?: string[] } {
  return ids.length > 0 ? { signed_as: ids } : {};
}

/**
 * The roster events written with no roster in force rest on: the hub's key
 * (admin, and its signer) and the thread's authors, with the access the hub
 * gives them now (no one else: an export does not list the hub's other
 * participants). A reader who trusts the hub's key (compare it with
 * "parley keygen" on that hub) can then check every such event offline.
 * Signed under the export roster's own domain: it vouches for this export
 * only, and no hub ever takes it as its roster.
 */
function localRoster(ctx: HubContext, authors: readonly ParticipantRecord[]): Roster {
  const hub = ctx.keys.hub();
  const hubKey = formatPublicKey(hub.raw);
  const members: Roster['members'] = [{ pubkey: hubKey, role: 'admin' }];
  for (const participant of authors) {
    members.push({ pubkey: keyTextOf(participant), role: ctx.access.accessOf(participant) ?? 'observer' });
  }
  const draft: Roster = { org_id: `local:${hubIdOf(hub.raw)}`, version: 1, timestamp: new Date(ctx.now()).toISOString(), members, signatures: [] };
  return signRoster(draft, hub.privateKey, EXPORT_ROSTER_DOMAIN);
}
