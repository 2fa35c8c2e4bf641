import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type Me } from './api.js';
import { Login } from './login.js';
import './style.css';

/** The page: sign in, then the session. The timeline, steering and the rest grow from here. */
function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [passwordSet, setPasswordSet] = useState(true);

  useEffect(() => {
    void api<{ passwordSet: boolean }>('GET', '/login').then((r) => setPasswordSet(r.passwordSet));
    // Not signed in (401), or the hub unreachable: the sign-in form says what happens next.
    api<Me>('GET', '/whoami')
      .then(setMe)
      .catch(() => setMe(null));
  }, []);

  if (me === undefined) return <p class="loading">Connecting to the hub…</p>;
  if (me === null) return <Login passwordSet={passwordSet} onSignedIn={setMe} />;
  return (
    <main>
      <header class="bar">
        <strong>Parley</strong>
        <span class="who">
          @{me.participant.handle} in session “{me.session.name}”
        </span>
        <button
          type="button"
          onClick={() => {
            void api('POST', '/logout').then(() => setMe(null));
          }}
        >
          Sign out
        </button>
      </header>
      <p>Signed in. The conversation view is being built.</p>
    </main>
  );
}

render(<App />, document.getElementById('app')!);
