import { writeFileSync } from 'node:fs';
import { ParleyError } from '../errors/parley-error.js';
import { participantCommand, text } from './rest-command.js';

/**
 * `parley export THREAD`: a thread as Markdown, JSON Lines, or the signed
 * format "parley verify" checks; printed, or written to --out.
 */
export const exportThread = participantCommand(async (api, [thread], values) => {
  if (values.signed === true && values.format !== undefined && values.format !== 'signed') {
    throw new ParleyError('INVALID_INPUT', `Invalid --format: --signed exports the signed format, not ${String(values.format)}; give one of them.`, { field: 'format' });
  }
  const format = values.signed === true ? 'signed' : (text(values.format) ?? 'markdown');
  const body = await api.exportThread(thread!, format);
  const out = text(values.out);
  // JSON Lines are data for programs ("parley verify" reads these exact bytes), and JSON has escaped every C0 control in them.
  if (out === undefined) return { json: body, text: body.body, ...(format === 'markdown' ? {} : { verbatim: true as const, file: true as const }) };
  // An export holds the conversation: readable by its owner only, like the home.
  writeFileSync(out, body.body, { mode: 0o600 });
  const wrote = { file: out, bytes: Buffer.byteLength(body.body), format };
  return { json: wrote, text: `wrote ${wrote.bytes} bytes (${format}) to ${wrote.file}` };
});
