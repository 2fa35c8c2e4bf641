import type { SecretLintRuleCreator, SecretLintSourceCode } from '@secretlint/types';

/**
 * A secretlint rule that reports JSON Web Tokens (signed JWS and encrypted JWE,
 * in compact form), which the recommended preset does not know. A JWT is a
 * bearer credential: whoever holds it is its subject until it expires.
 *
 * Shape: base64url segments joined by dots, three for a JWS (`header.payload.
 * signature`, the signature empty for `alg: none`) and five for a JWE. What
 * tells a JWT from any other dotted word (`a.b.c`, `1.2.3`, `config.key.name`)
 * is its first segment: a JSON object with an `alg` member, base64url-encoded.
 * A JSON object starts with `{` and then `"` or whitespace, which encodes as
 * `ey` or `ew`; the shortest header with `alg`, `{"alg":""}`, is 14 characters.
 */

export const JWT_RULE_ID = '@parley/secretlint-rule-jwt';

/** A character of base64url. */
const S = '[A-Za-z0-9_-]';

/**
 * Where a token may start: not inside a longer base64url run, except right
 * after a URL-encoded character (`%22eyJ…` in an encoded JSON body). Starting
 * only there keeps the search linear in the text's length.
 */
const TOKEN_START = String.raw`(?:(?<!${S})|(?<=%[0-9A-Fa-f]{2}))`;

/**
 * Header, then either payload and signature (possibly empty) with, for a JWE,
 * two more segments, or an empty JWE key (`alg: dir`) and three more segments.
 */
const JWT_PATTERN = new RegExp(
  String.raw`${TOKEN_START}e[wy]${S}{12,}\.(?:${S}+\.(?:${S}+(?:\.${S}+\.${S}+)?)?|\.${S}+\.${S}+\.${S}+)`,
  'g',
);

/**
 * A necessary condition of a match, to follow a `\.` in the prefilter: the
 * prefilter anchors it on the dot after the header, so that clean text costs
 * little at each dot instead of work at every letter `e`. Looking ahead for the
 * payload's dot first ends most tries at once (a sentence's dot is followed by
 * a space); only then does it look back for the header.
 */
export const JWT_AFTER_HEADER_DOT = String.raw`(?=${S}*\.)(?<=${TOKEN_START}e[wy]${S}{12,}\.)`;

/** True when a base64url segment decodes to a JSON object with a string `alg`. */
function isJoseHeader(segment: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

/** The JWTs of `text` as [start, end) UTF-16 offsets. */
export function findJwts(text: string): Array<{ start: number; end: number }> {
  const found: Array<{ start: number; end: number }> = [];
  const pattern = new RegExp(JWT_PATTERN);
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const header = match[0].slice(0, match[0].indexOf('.'));
    if (isJoseHeader(header)) found.push({ start: match.index, end: match.index + match[0].length });
    // Not a JWT, but one may start inside what was matched (after one of its dots).
    else pattern.lastIndex = match.index + 1;
  }
  return found;
}

const messages = {
  JWT: { en: () => 'found a JSON Web Token' },
};

export const jwtRule: SecretLintRuleCreator = {
  messages,
  meta: {
    id: JWT_RULE_ID,
    recommended: true,
    type: 'scanner',
    supportedContentTypes: ['text'],
  },
  create(context) {
    const t = context.createTranslator(messages);
    return {
      file(source: SecretLintSourceCode) {
        for (const { start, end } of findJwts(source.content)) context.report({ message: t('JWT'), range: [start, end] });
      },
    };
  },
};
