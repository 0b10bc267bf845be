import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { ApiError, createApp, errorMessage, type Platform } from "../api.ts";
import { ErrorText, Page, StatusText, TableScroll } from "../components/page.tsx";
import { formatDay } from "../format.ts";
import { appPath, useSession, useViewOnly } from "../session.tsx";
import { platformWord } from "../words.ts";

export function AppsPage() {
  const { apps, reloadApps } = useSession();
  const viewOnly = useViewOnly();
  return (
    <Page title="Apps">
      <section aria-labelledby="apps-list-heading" class="card">
        <h2 id="apps-list-heading">App list</h2>
        {apps === null ? (
          <p class="loading">Loading…</p>
        ) : apps.length === 0 ? (
          <p>
            {viewOnly
              ? "No apps yet: none has been shared with you."
              : "No apps yet. Create the first one below."}
          </p>
        ) : (
          <TableScroll>
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
      {viewOnly ? null : <CreateAppForm onCreated={reloadApps} />}
    </Page>
  );
}

function CreateAppForm(props: { onCreated: () => Promise<void> }) {
  const [appId, setAppId] = useState("");
  const [name, setName] = useState("");
  const [platform, setPlatform] = useState<Platform>("android");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      const app = await createApp({ app_id: appId.trim(), name: name.trim(), platform });
      setStatus(`Created ${app.name} (${app.app_id}).`);
      setAppId("");
      setName("");
      await props.onCreated().catch(() => undefined);
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.status === 409
          ? `An app with the id ${appId.trim()} already exists.`
          : errorMessage(caught),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="create-app-heading" class="card">
      <h2 id="create-app-heading">Create an app</h2>
      <form class="form-grid" onSubmit={submit}>
        <label class="field">
          <span>App id</span>
          <input
            name="app_id"
            required
            autocomplete="off"
            spellcheck={false}
            placeholder="com.example.game"
            aria-describedby="app-id-hint"
            value={appId}
            onInput={(event) => setAppId(event.currentTarget.value)}
          />
          <small id="app-id-hint">The package name (Android) or bundle id (iOS).</small>
        </label>
        <label class="field">
          <span>Name</span>
          <input
            name="name"
            required
            autocomplete="off"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Platform</span>
          <select
            name="platform"
            value={platform}
            onChange={(event) => setPlatform(event.currentTarget.value as Platform)}
          >
            <option value="android">Android</option>
            <option value="ios">iOS</option>
          </select>
        </label>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Create app
          </button>
        </div>
      </form>
      <ErrorText message={error} />
      <StatusText message={status} />
    </section>
  );
}
