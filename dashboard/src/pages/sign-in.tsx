import { useState } from "preact/hooks";
import { ApiError, errorMessage, type Session, signIn } from "../api.ts";
import { ErrorText, Page } from "../components/page.tsx";

export function SignInPage(props: { onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(await signIn(email.trim(), password));
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.status === 401
          ? "Wrong email or password."
          : errorMessage(caught),
      );
      setBusy(false);
    }
  };

  return (
    <Page title="Sign in">
      <form class="card narrow stack" onSubmit={submit} aria-describedby="sign-in-error">
        <label class="field">
          <span>Email</span>
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Password</span>
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </div>
        <ErrorText id="sign-in-error" message={error} />
      </form>
    </Page>
  );
}
