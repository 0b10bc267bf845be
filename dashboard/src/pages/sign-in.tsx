import { useEffect, useRef, useState } from "preact/hooks";
import { toDataURL } from "qrcode";
import {
  ApiError,
  answerChallenge,
  errorMessage,
  isChallenge,
  type Session,
  type SignInChallenge,
  signIn,
} from "../api.ts";
import { CopyField } from "../components/copy-field.tsx";
import { ErrorText, Page } from "../components/page.tsx";
import { codeRefusal } from "../sign-in-step.ts";

/** What the sign-in says when a session ended under the person: the page they were on is gone. */
export const SESSION_ENDED = "Your session ended: sign in again. Changes not saved were lost.";

/**
 * Signing in: the email and password, then, for a person with a TOTP (or an admin who must set
 * one up first), the code of their authenticator app. A wrong code keeps the code step, with
 * the service's reason; a sign-in the service says is over (too many wrong codes, or its time
 * gone) goes back to the password with that reason, as "Start again" does without one.
 * `expired`: the session ended under the person, which the page says first.
 */
export function SignInPage(props: { onSignedIn: (session: Session) => void; expired?: boolean }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [challenge, setChallenge] = useState<SignInChallenge | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [ended, setEnded] = useState<string | null>(null);
  const passwordInput = useRef<HTMLInputElement>(null);
  /** Counts the returns from the code step to the password, each of which focuses it. */
  const [backToPassword, setBackToPassword] = useState(0);

  useEffect(() => {
    if (backToPassword > 0) passwordInput.current?.focus();
  }, [backToPassword]);

  // Put in the live region once it is there, so that a screen reader reads it out.
  useEffect(() => {
    if (!props.expired) return;
    const frame = requestAnimationFrame(() => setEnded(SESSION_ENDED));
    return () => cancelAnimationFrame(frame);
  }, [props.expired]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await signIn(email.trim(), password);
      if (isChallenge(answer)) {
        setPassword("");
        setChallenge(answer);
        setBusy(false);
      } else {
        props.onSignedIn(answer);
      }
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.status === 401
          ? // A lockout says so, and for how long: the right password would be refused too.
            caught.detail.startsWith("Too many failed sign-ins")
            ? caught.detail
            : "Wrong email or password."
          : errorMessage(caught),
      );
      setBusy(false);
    }
  };

  /** Back to the password: the email kept, the reason the code step ended said, if any. */
  const startAgain = (reason: string | null = null) => {
    setChallenge(null);
    setError(reason);
    setBusy(false);
    setBackToPassword((count) => count + 1);
  };

  return (
    <Page title="Sign in">
      <div class="notice" role="alert" data-testid="session-ended">
        {ended}
      </div>
      {challenge ? (
        <CodeStep
          challenge={challenge}
          onSignedIn={props.onSignedIn}
          onStartAgain={() => startAgain()}
          onSignInOver={startAgain}
        />
      ) : (
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
              ref={passwordInput}
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
      )}
    </Page>
  );
}

function CodeStep(props: {
  challenge: SignInChallenge;
  onSignedIn: (session: Session) => void;
  onStartAgain: () => void;
  /** The service ended the sign-in: back to the password, with its reason. */
  onSignInOver: (reason: string) => void;
}) {
  const { challenge } = props;
  const setup = challenge.challenge === "totp_setup";
  const [code, setCode] = useState("");
  const [qr, setQr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    input.current?.focus();
    if (!challenge.otpauth_uri) return;
    let live = true;
    toDataURL(challenge.otpauth_uri, { margin: 2, width: 192, errorCorrectionLevel: "M" }).then(
      (data) => live && setQr(data),
      () => live && setQr(null),
    );
    return () => {
      live = false;
    };
  }, [challenge]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(await answerChallenge(challenge.challenge_token, code));
    } catch (caught) {
      // The service says why: a wrong code (try the next), or a sign-in that is over, which no
      // code would finish: the password again.
      const refusal = codeRefusal(caught);
      if (refusal.signInOver) {
        props.onSignInOver(refusal.message);
        return;
      }
      setError(refusal.message);
      setCode("");
      setBusy(false);
      input.current?.focus();
    }
  };

  return (
    <form class="card narrow stack" onSubmit={submit} aria-describedby="sign-in-error">
      <h2>{setup ? "Set up two-step sign-in" : "Two-step sign-in"}</h2>
      {setup ? (
        <>
          <p class="hint">
            Admins sign in with a code from an authenticator app too. Scan this QR code with the app
            (or enter the key by hand), then enter the 6-digit code it shows.
          </p>
          {qr ? (
            <img
              class="qr"
              src={qr}
              alt="QR code of the key for your authenticator app"
              width={192}
              height={192}
            />
          ) : null}
          {challenge.secret ? <CopyField value={challenge.secret} label="Key" /> : null}
        </>
      ) : (
        <p class="hint">Enter the 6-digit code your authenticator app shows.</p>
      )}
      <label class="field">
        <span>Code</span>
        <input
          ref={input}
          type="text"
          name="code"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9 ]*"
          maxLength={7}
          required
          value={code}
          onInput={(event) => setCode(event.currentTarget.value)}
        />
      </label>
      <div class="actions">
        <button type="submit" disabled={busy}>
          {setup ? "Turn on and sign in" : "Sign in"}
        </button>
        <button type="button" class="secondary" onClick={props.onStartAgain}>
          Start again
        </button>
      </div>
      <ErrorText id="sign-in-error" message={error} />
    </form>
  );
}
