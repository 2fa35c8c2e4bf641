/**
 * Message text rendered as markdown, safely: raw HTML in a message is shown
 * as text (html: false), links with script-capable schemes (javascript:,
 * vbscript:, data: outside images, file:) are refused by markdown-it's link
 * validation and stay plain text, and every link opens in a new tab without
 * access to this page. @mentions and the hub's `[redacted]` / `[truncated]`
 * markers are picked out so they are seen.
 */

import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });

const escapeHtml = md.utils.escapeHtml;
const MARKERS = /(\[redacted\]|\[truncated\])|(^|[^\w@])@([a-z0-9][a-z0-9_.-]{0,62})/gi;

md.renderer.rules.text = (tokens, idx) =>
  escapeHtml(tokens[idx]!.content).replace(MARKERS, (_all, marker: string | undefined, lead: string, handle: string) =>
    marker ? `<mark class="marker">${marker}</mark>` : `${lead}<span class="mention">@${handle}</span>`,
  );

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  token.attrSet('target', '_blank');
  token.attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

// Images in messages would fetch from anywhere on render: show them as links instead.
md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx]!;
  const src = String(token.attrGet('src') ?? '');
  return `<a href="${escapeHtml(src)}" target="_blank" rel="noopener noreferrer nofollow">${escapeHtml(String(token.content || src))}</a>`;
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}

/**
 * Message text as the words a reader sees, without markdown's markup (no
 * `##`, `**`, backticks or link targets): for one-line snippets such as search
 * results. The result is plain text, to be put in the page as text, never as HTML.
 */
export function markdownToPlainText(text: string): string {
  const words: string[] = [];
  for (const token of md.parse(text, {})) {
    if (token.type === 'inline') {
      for (const child of token.children ?? []) {
        if (child.type === 'softbreak' || child.type === 'hardbreak') words.push(' ');
        else if (child.type === 'image') words.push(child.content);
        else if (child.type === 'text' || child.type === 'code_inline' || child.type === 'html_inline') words.push(child.content);
      }
    } else if (token.type === 'fence' || token.type === 'code_block' || token.type === 'html_block') {
      words.push(token.content);
    }
    // Every block ends a run of words: the next starts after a space.
    if (token.block && token.nesting !== 1) words.push(' ');
  }
  return words.join('').replace(/\s+/g, ' ').trim();
}
