import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import {
  createApp,
  errorMessage,
  getUnknownPostbacks,
  type Platform,
  type UnknownPostbacks,
} from "../api.ts";
import { Field, fieldProps, focusFirstRefused, Problems } from "../components/form-fields.tsx";
import { ErrorText, Page, StatusText, TableScroll } from "../components/page.tsx";
import { type FormProblem, problemsByField, refusalProblems } from "../form-problems.ts";
import { addDays, formatCount, formatDay, today, UNKNOWN } from "../format.ts";
import { appPath, useSession, useViewOnly } from "../session.tsx";
import { platformWord } from "../words.ts";

export function AppsPage() {
  const { apps, appsError, reloadApps, user } = useSession();
  const [retrying, setRetrying] = useState(false);
  const viewOnly = useViewOnly();
  return (
    <Page title="Apps">
      <section aria-labelledby="apps-list-heading" class="card">
        <h2 id="apps-list-heading">App list</h2>
        {apps === null && appsError !== null ? (
          <div>
            <ErrorText message={`The apps could not be read: ${appsError}`} />
            <button
              type="button"
              disabled={retrying}
              onClick={() => {
                setRetrying(true);
                reloadApps()
                  .catch(() => undefined)
                  .finally(() => setRetrying(false));
              }}
            >
              Try again
            </button>
          </div>
        ) : apps === null ? (
          <p class="loading">Loading…</p>
        ) : apps.length === 0 ? (
          <p>
            {viewOnly
              ? "No apps yet: none has been shared with you."
              : "No apps yet. Create the first one below."}
          </p>
        ) : (
          <TableScroll label="Apps">
            <table aria-label="Apps">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">App id</th>
                  <th scope="col">Platform</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {apps.map((app) => (
                  <tr key={app.app_id} data-app-id={app.app_id}>
                    <th scope="row">
                      <Link href={appPath(app.app_id, "overview")}>{app.name}</Link>
                    </th>
                    <td class="mono">{app.app_id}</td>
                    <td>{platformWord(app.platform)}</td>
                    <td>{app.enabled ? "Yes" : "No"}</td>
                    <td>{formatDay(app.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>
      {user.admin ? <UnknownPostbacksNotice /> : null}
      {viewOnly ? null : <CreateAppForm onCreated={reloadApps} />}
    </Page>
  );
}

/** The form's inputs by the API's names, in the words their problems are said in. */
const APP_LABELS: Readonly<Record<string, string>> = {
  app_id: "App id",
  name: "Name",
  platform: "Platform",
};

/** The service's bounds (src/apps/registration.ts, src/dashboard/apps.ts). */
const MAX_APP_ID = 255;
const MAX_NAME = 200;

function CreateAppForm(props: { onCreated: () => Promise<void> }) {
  const [appId, setAppId] = useState("");
  const [name, setName] = useState("");
  const [platform, setPlatform] = useState<Platform>("android");
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<FormProblem[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const errors = problemsByField(problems);
  const { idOf, control } = fieldProps("create-app", errors);
  /** A change to an input takes its problem away. */
  const changed = (field: string) =>
    setProblems((current) => current.filter((problem) => problem.field !== field));

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblems([]);
    setStatus(null);
    try {
      const app = await createApp({ app_id: appId.trim(), name: name.trim(), platform });
      setStatus(`Created ${app.name} (${app.app_id}).`);
      setAppId("");
      setName("");
      await props.onCreated().catch(() => undefined);
    } catch (caught) {
      setProblems(
        refusalProblems(caught, APP_LABELS, {
          field: "app_id",
          text: `An app with the id ${appId.trim()} already exists.`,
        }),
      );
      focusFirstRefused(form.current);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="create-app-heading" class="card">
      <h2 id="create-app-heading">Create an app</h2>
      <form
        ref={form}
        class="form-grid"
        onSubmit={submit}
        aria-labelledby="create-app-heading"
        aria-describedby="create-app-error"
        aria-busy={busy}
      >
        <Field
          id={idOf("app_id")}
          label="App id"
          error={errors.app_id}
          hint="The package name (Android) or bundle id (iOS)."
          hintId="app-id-hint"
        >
          <input
            name="app_id"
            required
            autocomplete="off"
            spellcheck={false}
            placeholder="com.example.game"
            maxLength={MAX_APP_ID}
            {...control("app_id", "app-id-hint")}
            value={appId}
            onInput={(event) => {
              setAppId(event.currentTarget.value);
              changed("app_id");
            }}
          />
        </Field>
        <Field id={idOf("name")} label="Name" error={errors.name}>
          <input
            name="name"
            required
            autocomplete="off"
            maxLength={MAX_NAME}
            {...control("name")}
            value={name}
            onInput={(event) => {
              setName(event.currentTarget.value);
              changed("name");
            }}
          />
        </Field>
        <Field id={idOf("platform")} label="Platform" error={errors.platform}>
          <select
            name="platform"
            {...control("platform")}
            value={platform}
            onChange={(event) => {
              setPlatform(event.currentTarget.value as Platform);
              changed("platform");
            }}
          >
            <option value="android">Android</option>
            <option value="ios">iOS</option>
          </select>
        </Field>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Create app
          </button>
        </div>
      </form>
      <Problems id="create-app-error" problems={problems} />
      <StatusText message={status} />
    </section>
  );
}

/** Days back the notice of Apple's postbacks of no app looks. */
const UNKNOWN_DAYS = 30;

/**
 * For the service's admins: Apple's postbacks of the last 30 days that named an App Store id no
 * app has, kept under no app (docs/skadnetwork.md). Nothing is shown while there are none.
 */
function UnknownPostbacksNotice() {
  const [unknown, setUnknown] = useState<UnknownPostbacks | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    getUnknownPostbacks(addDays(today(), -(UNKNOWN_DAYS - 1)), today())
      .then((answer) => current && setUnknown(answer))
      .catch((caught) => current && setError(errorMessage(caught)));
    return () => {
      current = false;
    };
  }, []);
  if (error) return <ErrorText message={error} />;
  if (!unknown || unknown.app_store_ids.length === 0) return null;
  return (
    <section aria-labelledby="unknown-postbacks-heading" class="card">
      <h2 id="unknown-postbacks-heading">Apple's postbacks of no app</h2>
      <p>
        In the last {UNKNOWN_DAYS} days Apple's devices sent postbacks naming an App Store id that
        no app's settings have. They are kept, but counted for no app: set the id in the app's
        Settings (App Store id) and its verified postbacks, those before too, are the app's. A
        verified postback carries an App Store id Apple signed for an install with its production
        key. A development postback is a test's, which anyone can make for any id from Xcode or a
        device's developer settings: no sign of a real app. An id an app's settings have now was set
        since its postbacks came: its verified ones are now the app's, and only its unverified and
        development ones stay here.
      </p>
      <TableScroll label="Postbacks of no app">
        <table aria-label="Postbacks of no app">
          <thead>
            <tr>
              <th scope="col">App Store id</th>
              <th scope="col" class="num">
                Postbacks
              </th>
              <th scope="col" class="num">
                Verified
              </th>
              <th scope="col" class="num">
                Development
              </th>
              <th scope="col">Last received</th>
              <th scope="col">App now</th>
            </tr>
          </thead>
          <tbody>
            {unknown.app_store_ids.map((row) => (
              <tr key={row.app_store_id} data-app-store-id={row.app_store_id}>
                <td class="mono">{row.app_store_id}</td>
                <td class="num">{formatCount(row.postbacks)}</td>
                <td class="num">{formatCount(row.verified)}</td>
                <td class="num">{formatCount(row.development)}</td>
                <td>{formatDay(row.last_received_at)}</td>
                <td class="mono">{row.app_id ?? UNKNOWN}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {unknown.truncated ? (
        <p class="note">More were received than are read at once: these are the earliest.</p>
      ) : null}
    </section>
  );
}
