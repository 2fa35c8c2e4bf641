import type { Actor } from '../../src/hub/actor.js';
import type { Roster } from '../../src/schema/roster.js';
import type { ExportHeaderFields } from '../../src/schema/signed-export.js';
import { ExportSealer } from '../../src/trust/export-seal.js';
import type { KeyPair } from '../../src/trust/key-ring.js';
import { ExportVerifier, VerifyFailure } from '../../src/trust/signed-export.js';

/** A signed export's lines, parsed, to be changed field by field. */
export type Line = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON lines, changed field by field

/** Checks an export's lines in process; the failure, or undefined when it verifies. */
export function verifyLines(lines: string[], options: { anchor?: Roster; noGaps?: boolean } = {}): VerifyFailure | undefined {
  const verifier = new ExportVerifier(options);
  try {
    for (const line of lines) verifier.line(line);
    verifier.finish();
    return undefined;
  } catch (error) {
    if (error instanceof VerifyFailure) return error;
    throw error;
  }
}

/** A thread's signed export from a hub, as its lines. */
export async function exportLines(actor: Actor, thread: string): Promise<string[]> {
  const exported = await actor.export({ thread, format: 'signed' });
  let text = '';
  for await (const chunk of exported.chunks) text += chunk;
  return text.trimEnd().split('\n');
}

/**
 * An export sealed by `hub` (a signed header, then `body`, then a signed
 * trailer over it): what a holder of that hub key can write, so that a test
 * reaches the checks behind the seal.
 */
export function sealedBy(hub: KeyPair, header: Omit<ExportHeaderFields, 'type' | 'v' | 'hub'>, body: string[]): string[] {
  const seal = new ExportSealer(hub, header);
  return [seal.header(), ...body.map((line) => seal.line(JSON.parse(line) as Parameters<ExportSealer['line']>[0])), seal.trailer()];
}

/** The header fields of an export's first line, to seal another body under the same header. */
export function headerFieldsOf(lines: string[]): Omit<ExportHeaderFields, 'type' | 'v' | 'hub'> {
  const { mode, thread, authors, exported_at: exportedAt } = JSON.parse(lines[0]!) as ExportHeaderFields;
  return { mode, thread, authors, exported_at: exportedAt };
}
