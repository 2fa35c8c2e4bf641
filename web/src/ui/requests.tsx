/**
 * Open requests to and from the human, each with what it asks: its intent,
 * its text (markdown, rendered safely) and its params as a list of names and
 * values. Those addressed to the human are answered in one click (Accepted,
 * Rejected, Completed, Failed) with an optional note; the human can also ask
 * something of a participant.
 */

import { useEffect, useState } from 'preact/hooks';
import { api, seg } from '../api.js';
import { openThread } from '../state/open-view.js';
import { refreshRequests } from '../state/refreshers.js';
import { attempt, openRequests, threads } from '../state/view-state.js';
import type { OpenRequest, RequestStatus } from '../types.js';
import { Markdown, Status } from './message.js';
import { othersThanMe, ParticipantSelect } from './people.js';
import { inBackground } from '../state/background.js';

const STATUSES: RequestStatus[] = ['Accepted', 'Rejected', 'Completed', 'Failed'];

export function RequestsView() {
  // Read again when opened: live events keep the list current, but not while the stream is down or held back by a proxy.
  useEffect(() => inBackground(refreshRequests(), 'reading the open requests'), []);
  const { incoming, outgoing } = openRequests.value;
  return (
    <section class="requests" aria-labelledby="requests-title">
      <h1 id="requests-title">Requests</h1>
      <h2>Waiting for you ({incoming.length})</h2>
      {incoming.length === 0 && <p class="muted">Nothing is waiting for you.</p>}
      <ul>
        {incoming.map((r) => (
          <Incoming key={r.request_id} request={r} />
        ))}
      </ul>
      <h2>Asked by you ({outgoing.length})</h2>
      {outgoing.length === 0 && <p class="muted">You are not waiting on anyone.</p>}
      <ul>
        {outgoing.map((r) => (
          <li key={r.request_id} class="request-item" data-request={r.request_id}>
            <RequestLine request={r} />
            <Asked request={r} />
          </li>
        ))}
      </ul>
      <NewRequest />
    </section>
  );
}

function RequestLine({ request }: { request: OpenRequest }) {
  const thread = threads.value.find((t) => t.id === request.thread);
  return (
    <p>
      <strong>
        <bdi>{request.intent}</bdi>
      </strong>{' '}
      from @{request.from} to @{request.to} <Status status={request.status} />{' '}
      {thread && (
        <button type="button" class="link" onClick={() => inBackground(openThread(request.thread, request.seq), 'opening a thread')}>
          in {thread.kind === 'dm' ? 'a direct message' : <bdi>{thread.name}</bdi>}
        </button>
      )}
    </p>
  );
}

/** What the request asks beyond its intent: the text, then the params. */
function Asked({ request }: { request: OpenRequest }) {
  return (
    <>
      {request.text && <Markdown text={request.text} />}
      <Params value={request.params} />
    </>
  );
}

/**
 * Params as a person reads them: an object as one line per name with its
 * value (text as written, anything else as compact JSON); any other value as
 * JSON. Nothing when the request has none.
 */
function Params({ value }: { value: unknown }) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    return (
      <pre class="params" dir="ltr">
        {JSON.stringify(value, null, 2)}
      </pre>
    );
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return null;
  return (
    <dl class="params-list">
      {entries.map(([name, v]) => (
        <div key={name}>
          <dt>
            <bdi>{name}</bdi>
          </dt>
          <dd dir={typeof v === 'string' ? 'auto' : 'ltr'}>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

function Incoming({ request }: { request: OpenRequest }) {
  const [note, setNote] = useState('');
  const respond = (status: RequestStatus) =>
    attempt(async () => {
      await api('POST', `/requests/${seg(request.request_id)}/responses`, { status, ...(note.trim() ? { text: note.trim() } : {}) });
      setNote('');
      await refreshRequests();
    });
  return (
    <li class="request-item" data-request={request.request_id}>
      <RequestLine request={request} />
      <Asked request={request} />
      <div class="respond">
        <input value={note} onInput={(e) => setNote(e.currentTarget.value)} placeholder="Result note (optional)" aria-label={`Note for ${request.intent}`} />
        {STATUSES.filter((s) => !(s === 'Accepted' && request.status === 'Accepted')).map((s) => (
          <button key={s} type="button" class={`small secondary respond-${s.toLowerCase()}`} onClick={() => inBackground(respond(s), 'answering the request')}>
            {s}
          </button>
        ))}
      </div>
    </li>
  );
}

function NewRequest() {
  const others = othersThanMe();
  const [to, setTo] = useState('');
  const [intent, setIntent] = useState('');
  const [text, setText] = useState('');
  return (
    <form
      class="new-request"
      onSubmit={async (e) => {
        e.preventDefault();
        const sent = await attempt(() => api('POST', '/requests', { to: to || others[0]?.handle, intent, ...(text.trim() ? { text } : {}) }));
        if (sent) {
          setIntent('');
          setText('');
          await refreshRequests();
        }
      }}
    >
      <h2>Ask for something</h2>
      <ParticipantSelect label="To" options={others} value={to} onChange={setTo} />
      <label>
        What (intent)
        <input value={intent} onInput={(e) => setIntent(e.currentTarget.value)} required placeholder="e.g. review the migration" />
      </label>
      <label>
        Details
        <textarea value={text} onInput={(e) => setText(e.currentTarget.value)} rows={2} />
      </label>
      <button type="submit">Send request</button>
    </form>
  );
}
