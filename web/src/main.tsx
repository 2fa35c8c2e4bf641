import { render } from 'preact';

/** The page's entry. The full app (login, sessions, timeline, steering) grows from here. */
function App() {
  return (
    <main>
      <h1>Parley</h1>
      <p>The hub is running. The web page is being built.</p>
    </main>
  );
}

render(<App />, document.getElementById('app')!);
