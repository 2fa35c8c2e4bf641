import { openThread } from '../state/open-view.js';
import { searchResults, threads } from '../state/view-state.js';
import type { ParleyEvent } from '../types.js';
import { markdownToPlainText } from './markdown.js';
import { summaryOf } from './message.js';
import { snippetOf } from './snippet.js';
import { Time } from './time.js';
import { inBackground } from '../state/background.js';

/**
 * Full-text search results for the session; each opens its thread at the
 * message. A result shows the words of the message around what matched, as
 * text (its markdown is not shown as markup), with the matching words marked.
 */
export function SearchView({ query }: { query: string }) {
  const results = searchResults.value;
  return (
    <section class="search-results" aria-labelledby="search-title">
      <h1 id="search-title">
        Search: “<bdi>{query}</bdi>”
      </h1>
      {results === undefined && <p class="muted">Searching…</p>}
      {results?.length === 0 && <p class="muted">No message matches.</p>}
      <ul>
        {results?.map((e) => {
          const thread = threads.value.find((t) => t.id === e.thread);
          return (
            <li key={e.seq}>
              <button type="button" class="result" data-seq={e.seq} onClick={() => inBackground(openThread(e.thread, e.seq), 'opening a thread')}>
                <span class="meta">
                  <bdi class="where">{thread ? thread.name : 'a thread'}</bdi> · <strong>@{e.author}</strong> · <Time iso={e.ts} />
                </span>
                <Snippet event={e} query={query} />
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Snippet({ event, query }: { event: ParleyEvent; query: string }) {
  return (
    <span class="snippet" dir="auto">
      {snippetOf(markdownToPlainText(summaryOf(event)), query).map((piece, i) => (piece.hit ? <mark key={i} class="hit">{piece.text}</mark> : piece.text))}
    </span>
  );
}
