/**
 * A cheap test run before the secret scanner: most chat messages contain no
 * secret-shaped text, and for them the scanner (which instantiates two dozen
 * rules per call) can be skipped.
 *
 * It must be conservative: whenever a scanner rule could report something,
 * this returns true. Each entry below is a *necessary* condition of one rule of
 * the recommended preset (v12) or of our private-key rule, derived from the
 * rule's own regex: usually the fixed prefix every match starts with. Adding a
 * rule to the scanner means adding its necessary condition here; the tests
 * check every token shape we know against both.
 */

/** Case-sensitive prefixes and shapes, as the rules match them. */
const CASE_SENSITIVE_SHAPES: readonly string[] = [
  // AWS access key id (only scanned with enableIDScanRule).
  String.raw`(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}`,
  // PEM private keys (preset rule and ours); also the GCP service-account JSON
  // rule, whose `private_key` must contain a BEGIN … PRIVATE KEY header.
  'PRIVATE KEY',
  // npm: access tokens, and `_authToken=` lines of an .npmrc.
  'npm_',
  '_authToken=',
  // Slack tokens.
  'xox[bpaor]-',
  'xapp-',
  // SendGrid: SG.<part>.<part>.
  String.raw`SG\.\w+\.`,
  // Shopify.
  'shp(?:pa|ca|at|ss)_',
  // GitHub classic and fine-grained tokens.
  'gh[pousr]_',
  'github_pat_',
  // GitLab personal access tokens, Grafana cloud and service-account tokens.
  'glpat-',
  'glc_',
  'glsa_',
  // OpenAI: every key shape the rule knows embeds base64("OpenAI") = T3BlbkFJ.
  'T3BlbkFJ',
  // Anthropic, Groq, Hugging Face, Linear, Notion (new format), 1Password.
  'sk-ant-api0',
  'gsk_',
  'hf_',
  'lin_api_',
  'ntn_',
  'ops_ey',
  // HashiCorp Vault service / batch / recovery tokens.
  String.raw`hv[sbr]\.`,
  // Vercel (vcp, vci, vca, vcr, vck).
  'vc[pciark]_',
  // Databricks, Docker, Figma.
  'dapi[0-9A-Fa-f]{32}',
  'dckr_pat_',
  'figd_',
  // Credentials in a URL (basic auth; MongoDB, MySQL, PostgreSQL strings):
  // scheme://user:password@… with no whitespace or slash in user or password.
  String.raw`:\/\/[^\s\/:]+:[^\s\/@]+@`,
];

/** Shapes the rules match in several spellings (AWS, aws, Aws…): matched loosely. */
const CASE_INSENSITIVE_SHAPES: readonly string[] = [
  // AWS secret access key assignment: aws_secret_access_key = …
  'secret_?access_?key',
  // AWS account id assignment: aws_account_id = 1234-5678-9012
  String.raw`account_?(?:id)?["']?\s*[:=]`,
  // Slack incoming webhook URLs.
  String.raw`hooks\.slack\.com\/services\/`,
];

const CASE_SENSITIVE = new RegExp(CASE_SENSITIVE_SHAPES.join('|'));
const CASE_INSENSITIVE = new RegExp(CASE_INSENSITIVE_SHAPES.join('|'), 'i');

/**
 * The GCP rule parses the whole text as JSON, so a service-account key could
 * hide its field names and key header behind `\uXXXX` escapes. Such a text is
 * JSON with escapes, which ordinary chat rarely is: scan it.
 */
function mightBeEscapedJson(text: string): boolean {
  return text.includes('\\u') && text.includes('{');
}

/**
 * False only when no scanner rule can match `text`; true when one might (and
 * sometimes for clean text: then the scanner just finds nothing).
 */
export function mightContainSecret(text: string): boolean {
  return CASE_SENSITIVE.test(text) || CASE_INSENSITIVE.test(text) || mightBeEscapedJson(text);
}
