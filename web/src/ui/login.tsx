import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import type { Me } from '../types.js';

/** Sign-in with the hub password (Maestro): handle and session default to "human" and "default". */
export function Login({ passwordSet, onSignedIn }: { passwordSet: boolean; onSignedIn: (me: Me) => void }) {
  const [password, setPassword] = useState('');
  const [handle, setHandle] = useState('human');
  const [session, setSession] = useState('default');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await api<Me>('POST', '/login', { password, handle, session }));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The hub did not answer.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="login" onSubmit={submit} aria-labelledby="login-title">
      <h1 id="login-title">Parley</h1>
      {!passwordSet && (
        <p class="banner" role="alert">
          This hub runs without a password: set PARLEY_WEBUI_PASSWORD (or webui.password) and restart it to sign in here.
        </p>
      )}
      <label>
        Password
        <input type="password" name="password" autoComplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} required />
      </label>
      <label>
        Handle
        <input name="handle" value={handle} onInput={(e) => setHandle(e.currentTarget.value)} required />
      </label>
      <label>
        Session
        <input name="session" value={session} onInput={(e) => setSession(e.currentTarget.value)} required />
      </label>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy || !passwordSet}>
        Sign in
      </button>
    </form>
  );
}
