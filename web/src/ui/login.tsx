import { useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import type { Me } from '../types.js';
import { inBackground } from '../state/background.js';

/**
 * Sign-in with the hub password: handle and session default to "human" and "default".
 * A handle no human has is refused by the hub unless the person confirms creating it here,
 * so a typo does not sign them in as a second, empty human.
 */
export function Login({ passwordSet, onSignedIn }: { passwordSet: boolean; onSignedIn: (me: Me) => void }) {
  const [password, setPassword] = useState('');
  const [handle, setHandle] = useState('human');
  const [session, setSession] = useState('default');
  const [error, setError] = useState<string | undefined>();
  // The handle the hub does not know, while the page asks whether to create it.
  const [unknownHandle, setUnknownHandle] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const handleInput = useRef<HTMLInputElement>(null);

  async function signIn(create: boolean) {
    setBusy(true);
    setError(undefined);
    setUnknownHandle(undefined);
    try {
      onSignedIn(await api<Me>('POST', '/login', { password, handle, session, ...(create ? { create } : {}) }));
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === 'NOT_FOUND' && caught.field === 'handle') setUnknownHandle(handle);
      else setError(caught instanceof ApiError ? caught.message : 'The hub did not answer.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      class="login"
      onSubmit={(event) => {
        event.preventDefault();
        inBackground(signIn(false), 'signing in');
      }}
      aria-labelledby="login-title"
    >
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
        <input
          ref={handleInput}
          name="handle"
          value={handle}
          onInput={(e) => {
            setHandle(e.currentTarget.value);
            // The question was about the handle as it was typed then.
            setUnknownHandle(undefined);
          }}
          required
        />
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
      {unknownHandle !== undefined && (
        <div class="confirm-create banner" role="alert">
          <p>
            No human named <bdi>{unknownHandle}</bdi> here. Create <bdi>{unknownHandle}</bdi>?
          </p>
          <div class="buttons">
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setUnknownHandle(undefined);
                handleInput.current?.select();
              }}
            >
              Cancel
            </button>
            <button type="button" disabled={busy} onClick={() => inBackground(signIn(true), 'signing in')}>
              Create {unknownHandle}
            </button>
          </div>
        </div>
      )}
      <button type="submit" disabled={busy || !passwordSet}>
        Sign in
      </button>
    </form>
  );
}
