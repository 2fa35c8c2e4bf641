import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig, SecretLintCoreResultMessage } from '@secretlint/types';
import { RULES_WITH_CONDITIONS } from './prefilter.js';
import { jwtRule } from './jwt-rule.js';
import { privateKeyRule } from './private-key-rule.js';

/** A secret found in a text: [start, end) in UTF-16 code units of that text. */
export interface SecretSpan {
  start: number;
  end: number;
  ruleId: string;
}

export interface SecretScanner {
  /** Finds secrets; `rules`, when given, limits the scan to those rule ids (a scanner may ignore it). */
  scan(text: string, rules?: readonly string[]): Promise<SecretSpan[]>;
}

const AWS_RULE_ID = '@secretlint/secretlint-rule-aws';
/**
 * The preset's comment filter honours `secretlint-disable` comments in the
 * scanned text. In a chat message that would let any author switch redaction
 * off by typing a magic word, so it is left out. (Core 12 ignores `disabled`
 * on a rule inside a preset, which is why the preset's rules are registered
 * one by one instead of through the preset itself.)
 */
const COMMENT_FILTER_RULE_ID = '@secretlint/secretlint-rule-filter-comments';

/**
 * Rules (including the preset's) that put the secret itself in the message
 * data under one of these names. Used to correct ranges, see `spanOf`.
 */
const SECRET_DATA_KEYS = ['KEY', 'ID', 'TOKEN', 'URI', 'URL', 'CREDENTIAL'] as const;

/**
 * The secretlint config: the recommended preset's rules (AWS with the access
 * key id scan on, which is off by default) plus our private-key and JWT rules.
 */
function buildConfig(): SecretLintCoreConfig {
  const rules: SecretLintCoreConfig['rules'] = recommendedRules
    .filter((rule) => rule.meta.id !== COMMENT_FILTER_RULE_ID)
    .map((rule) => ({
      id: rule.meta.id,
      rule,
      ...(rule.meta.id === AWS_RULE_ID ? { options: { enableIDScanRule: true } } : {}),
    }));
  rules.push({ id: privateKeyRule.meta.id, rule: privateKeyRule }, { id: jwtRule.meta.id, rule: jwtRule });
  return { rules };
}

/**
 * The span to redact for one message.
 *
 * Some preset rules report a wrong range: the AWS secret-access-key rule and
 * the npm `_authToken` rule report [start of the whole match, + length of the
 * captured secret], so the range covers the label and only the head of the
 * secret, and its tail would leak. They do put the exact secret in `data`, so
 * when that string starts inside the reported range but runs past its end, the
 * string's own position is used instead. Correct rules are left as reported.
 */
function spanOf(content: string, message: SecretLintCoreResultMessage): { start: number; end: number } {
  const [start, end] = message.range;
  const data: Record<string, unknown> = message.data ?? {};
  for (const key of SECRET_DATA_KEYS) {
    const value = data[key];
    if (typeof value !== 'string' || value === '') continue;
    const at = content.indexOf(value, start);
    if (at === -1 || at > end) continue;
    if (at + value.length <= end) return { start, end };
    return { start: at, end: at + value.length };
  }
  return { start, end };
}

/**
 * secretlint's core always profiles: each lintSource call records ~50
 * performance marks (and as many measures), and a process-wide
 * PerformanceObserver keeps every entry forever and searches all earlier ones
 * for each new `::end` mark. In a long-running hub that is a memory leak whose
 * CPU cost grows quadratically (measured: 2,000 scans of a short message took
 * 4 minutes instead of 0.4 s). Nothing here reads the profile, so its marks
 * are switched off for the whole process. `@secretlint/profiler` is
 * @secretlint/core's own dependency (same pinned version, hoisted), so this is
 * the instance core uses; a scanner test guards that no mark is left behind.
 */
function silenceSecretlintProfiler(): void {
  secretLintProfiler.mark = () => undefined;
}

/**
 * A scanner running secretlint. The config is built once; each scan only
 * instantiates the rules (secretlint's design) and runs their regexes.
 */
export function createSecretlintScanner(): SecretScanner {
  silenceSecretlintProfiler();
  const config = buildConfig();
  // A configured rule the prefilter has no condition for is always run.
  const alwaysRun = config.rules.map((r) => r.id).filter((id) => !RULES_WITH_CONDITIONS.has(id));
  const subsets = new Map<string, SecretLintCoreConfig>();
  const configFor = (rules: readonly string[] | undefined): SecretLintCoreConfig => {
    if (rules === undefined) return config;
    const wanted = new Set([...rules, ...alwaysRun]);
    const key = [...wanted].sort().join(' ');
    let subset = subsets.get(key);
    if (!subset) {
      subset = { rules: config.rules.filter((r) => wanted.has(r.id)) };
      subsets.set(key, subset);
    }
    return subset;
  };
  return {
    async scan(text: string, rules?: readonly string[]): Promise<SecretSpan[]> {
      // secretlint strips a leading BOM and reports offsets into the rest, so
      // strip it ourselves and shift the spans back.
      const offset = text.charCodeAt(0) === 0xfeff ? 1 : 0;
      const content = offset === 0 ? text : text.slice(offset);
      const result = await lintSource({
        // No real file: the path only steers path-sensitive rules. `.npmrc`
        // turns on the npm rule's `_authToken=` check; `.json` the GCP rule's
        // service-account JSON check (it parses the whole text as JSON).
        source: { content, filePath: 'message.npmrc', ext: '.json', contentType: 'text' },
        options: { config: configFor(rules), noPhysicFilePath: true, maskSecrets: false },
      });
      const spans: SecretSpan[] = [];
      for (const message of result.messages) {
        const { start, end } = spanOf(content, message);
        if (end <= start) continue;
        spans.push({ start: start + offset, end: end + offset, ruleId: message.ruleId });
      }
      return spans;
    },
  };
}
