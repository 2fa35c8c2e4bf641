import type { SecretLintRuleCreator, SecretLintSourceCode } from '@secretlint/types';

/**
 * A secretlint rule that reports every PEM-style private key block, whatever
 * its algorithm label, from its BEGIN line through its END line.
 *
 * Why not the recommended preset's `privatekey` rule alone: it only knows the
 * labels RSA/DSA/EC/OPENSSH/PGP (so `ENCRYPTED PRIVATE KEY` is missed), it
 * wants at least 100 base64 characters starting with `MI` (so Ed25519 PKCS#8,
 * 64 characters starting `MC4`, and EC P-256 SEC1, starting `MHc`, are missed),
 * and it needs the END line (so a key cut off by truncation is missed). A chat message is not a
 * config file: if someone pastes a key header, what follows is almost surely
 * key material, so this rule errs on the side of redacting.
 */

export const PRIVATE_KEY_RULE_ID = '@parley/secretlint-rule-private-key-block';

/**
 * `-----BEGIN <label> PRIVATE KEY-----` for any uppercase label (RSA, EC, DSA,
 * OPENSSH, ENCRYPTED, PGP … BLOCK, or none). The label is bounded so that a
 * long run of capitals after BEGIN cannot make the match expensive.
 */
const BEGIN_PATTERN = /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY[ A-Z]{0,10}-----/;

/**
 * The END line. Any private-key END closes the block, even if its label differs
 * from the BEGIN's: a mismatched pair is still key material in between.
 */
const END_PATTERN = /-----END[ A-Z0-9]{0,40}PRIVATE KEY[ A-Z]{0,10}-----/;

export interface PrivateKeyBlock {
  start: number;
  end: number;
  /** The BEGIN line's label, e.g. "OPENSSH PRIVATE KEY" (for the message only). */
  label: string;
  /** False when the text stopped before an END line (e.g. it was truncated). */
  complete: boolean;
}

/**
 * Finds the private key blocks of `text` as [start, end) UTF-16 offsets. Blocks
 * do not overlap: a BEGIN inside a block already found is part of that block.
 */
export function findPrivateKeyBlocks(text: string): PrivateKeyBlock[] {
  const blocks: PrivateKeyBlock[] = [];
  // Global copies per call: their lastIndex is state, the patterns are shared.
  const begin = new RegExp(BEGIN_PATTERN.source, 'g');
  const end = new RegExp(END_PATTERN.source, 'g');
  let from = 0;
  while (from < text.length) {
    begin.lastIndex = from;
    const opening = begin.exec(text);
    if (!opening) break;
    const label = opening[0].replace(/^-----BEGIN ?/, '').replace(/-----$/, '');
    end.lastIndex = opening.index + opening[0].length;
    const closing = end.exec(text);
    if (!closing) {
      // No END: everything from BEGIN on may be key material.
      blocks.push({ start: opening.index, end: text.length, label, complete: false });
      break;
    }
    const blockEnd = closing.index + closing[0].length;
    blocks.push({ start: opening.index, end: blockEnd, label, complete: true });
    from = blockEnd;
  }
  return blocks;
}

const messages = {
  PRIVATE_KEY_BLOCK: {
    en: (props: { LABEL: string }) => `found a private key block (${props.LABEL})`,
  },
  PRIVATE_KEY_BLOCK_UNTERMINATED: {
    en: (props: { LABEL: string }) => `found a private key block without its END line (${props.LABEL})`,
  },
};

export const privateKeyRule: SecretLintRuleCreator = {
  messages,
  meta: {
    id: PRIVATE_KEY_RULE_ID,
    recommended: true,
    type: 'scanner',
    supportedContentTypes: ['text'],
  },
  create(context) {
    const t = context.createTranslator(messages);
    return {
      file(source: SecretLintSourceCode) {
        for (const block of findPrivateKeyBlocks(source.content)) {
          context.report({
            message: t(block.complete ? 'PRIVATE_KEY_BLOCK' : 'PRIVATE_KEY_BLOCK_UNTERMINATED', { LABEL: block.label }),
            range: [block.start, block.end],
          });
        }
      },
    };
  },
};
