import fs from 'node:fs';
import readline from 'node:readline';
import { ParleyError } from '../errors/parley-error.js';
import { readRosterFile } from '../trust/roster-file.js';
import { ExportVerifier, VerifyFailure, type VerifyReport } from '../trust/signed-export.js';
import type { CommandArgs, CommandRun } from './command.js';
import type { VERIFY_OPTIONS } from './command-options.js';
import { terminalJson, terminalText } from './terminal-text.js';

const VERIFY_HELP = `Usage: parley verify FILE [--roster ROSTER] [--no-gaps] [--json]

Checks a signed export ("parley export THREAD --signed --out FILE") offline,
without a hub: the header and trailer the exporting hub signed (the thread,
the authors' handles, how many events from which seq to which, and a hash
chain over every line between them, so no event can be taken out, added or
changed), every event's signature against its author's key, that each author
was in the roster in force when it wrote (with the role its event needs),
that each roster version was signed by admins of the one before, and that no
event was replayed or reordered. Names come only from signed data. Stops at
the first failure and names its line; exit 0 when everything verifies, 1
when something does not (an export by a Parley without signed headers and
trailers too: export it again).

--roster ROSTER  a roster file you already trust: the export's roster chain
                 must include exactly that version, events must be written under
                 it or later versions, and the hub key of events written with no
                 roster must be one of its admins.
--no-gaps        fail when an author's sender_seq skips (events the hub no
                 longer held when it exported: pruned by retention); by default
                 gaps are counted and reported.

Events written with no roster in force (local mode) rest on the exporting
hub's key, which the export names: compare it with "parley keygen" on that hub.
`;

export const verify: CommandRun<typeof VERIFY_OPTIONS> = { help: VERIFY_HELP, run: verifyExport };

async function verifyExport({ values, positionals }: CommandArgs<typeof VERIFY_OPTIONS>): Promise<number> {
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) {
    throw new ParleyError('INVALID_INPUT', 'Give one file to verify: parley verify FILE.', { field: 'FILE' });
  }
  const anchor = values.roster === undefined ? undefined : readRosterFile(values.roster);
  const verifier = new ExportVerifier({ ...(anchor ? { anchor } : {}), noGaps: values['no-gaps'] === true });
  let report: VerifyReport;
  try {
    const input = fs.createReadStream(file, { encoding: 'utf8' });
    const opened = new Promise<void>((resolve, reject) => {
      input.once('open', () => resolve());
      input.once('error', reject);
    });
    await opened.catch((error: NodeJS.ErrnoException) => {
      throw new ParleyError('INVALID_INPUT', `Cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}.`, { field: 'FILE' });
    });
    for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) verifier.line(line);
    report = verifier.finish();
  } catch (error) {
    if (!(error instanceof VerifyFailure)) throw error;
    if (values.json) process.stdout.write(`${terminalJson({ ok: false, line: error.line, reason: error.reason })}\n`);
    process.stderr.write(`parley: ${terminalText(`${file} does not verify: ${error.message}`, 'one line')}\n`);
    return 1;
  }
  if (values.json) {
    process.stdout.write(`${terminalJson({ ok: true, ...report })}\n`);
    return 0;
  }
  // Every name here is one the hub signed (the header), every count one the trailer vouches for.
  const rosters = report.rosters.map((r) => `${r.org_id} v${r.version}`).join(', ');
  const anchors = [rosters === '' ? '' : `roster ${rosters}`, report.local ? `the hub key ${report.hub} (local mode)` : ''].filter(Boolean).join(' and ');
  const authors = report.handles.map((h) => `@${h}`).join(', ');
  const summary =
    `verified: ${report.events} events (seq ${report.first_seq}-${report.last_seq}) by ${report.authors} author${report.authors === 1 ? '' : 's'} (${authors}) in ${report.thread.kind === 'channel' ? '#' : ''}${report.thread.name}, against ${anchors}` +
      `${report.local ? '' : `; exported by the hub key ${report.hub}`}` +
      `${report.gaps > 0 ? `; ${report.gaps} gaps in sender_seq: events missing, pruned by retention before the export (--no-gaps fails on them)` : ''}`;
  // The names come from a file anyone could have written: nothing in them may act on the terminal.
  process.stdout.write(`${terminalText(summary, 'one line')}\n`);
  return 0;
}
