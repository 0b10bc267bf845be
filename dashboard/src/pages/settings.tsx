import { useEffect, useState } from "preact/hooks";
import {
  ApiError,
  type AppSettings,
  type AppSettingsPatch,
  type ConfidenceFloor,
  type DeepLinkConfidenceFloor,
  errorMessage,
  getApp,
  updateApp,
} from "../api.ts";
import { ErrorText, Page, StatusText } from "../components/page.tsx";
import { useSession } from "../session.tsx";

/** The form's values as typed: numbers stay text until saved, lists are one item a line. */
interface Draft {
  name: string;
  enabled: boolean;
  encryption: boolean;
  attributionEnabled: boolean;
  clickWindowDays: string;
  viewWindowHours: string;
  probabilisticWindowHours: string;
  probabilisticAndroid: boolean;
  probabilisticIos: boolean;
  confidenceFloor: ConfidenceFloor;
  deepLinkConfidenceFloor: DeepLinkConfidenceFloor;
  appStoreId: string;
  webUrl: string;
  hosts: string;
  appleTeamId: string;
  fingerprints: string;
}

const draftOf = (app: AppSettings): Draft => ({
  name: app.name,
  enabled: app.enabled,
  encryption: app.encryption.enabled,
  attributionEnabled: app.attribution.enabled,
  clickWindowDays: String(app.attribution.click_window_days),
  viewWindowHours: String(app.attribution.view_window_hours),
  probabilisticWindowHours: String(app.attribution.probabilistic_window_hours),
  probabilisticAndroid: app.attribution.probabilistic.android,
  probabilisticIos: app.attribution.probabilistic.ios,
  confidenceFloor: app.attribution.confidence_floor,
  deepLinkConfidenceFloor: app.attribution.deep_link_confidence_floor,
  appStoreId: app.links.app_store_id ?? "",
  webUrl: app.links.web_url ?? "",
  hosts: app.links.hosts.join("\n"),
  appleTeamId: app.links.apple_team_id ?? "",
  fingerprints: app.links.android_sha256_fingerprints.join("\n"),
});

/** Text as a number; what cannot be one goes as null, for the service to refuse with a reason. */
const numberOf = (text: string): number => (text.trim() === "" ? Number.NaN : Number(text));
const textOrNull = (text: string): string | null => (text.trim() === "" ? null : text.trim());
const linesOf = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");

const patchOf = (draft: Draft): AppSettingsPatch => ({
  name: draft.name.trim(),
  enabled: draft.enabled,
  encryption: { enabled: draft.encryption },
  attribution: {
    enabled: draft.attributionEnabled,
    click_window_days: numberOf(draft.clickWindowDays),
    view_window_hours: numberOf(draft.viewWindowHours),
    probabilistic_window_hours: numberOf(draft.probabilisticWindowHours),
    probabilistic: { android: draft.probabilisticAndroid, ios: draft.probabilisticIos },
    confidence_floor: draft.confidenceFloor,
    deep_link_confidence_floor: draft.deepLinkConfidenceFloor,
  },
  links: {
    app_store_id: textOrNull(draft.appStoreId),
    web_url: textOrNull(draft.webUrl),
    hosts: linesOf(draft.hosts),
    apple_team_id: textOrNull(draft.appleTeamId),
    android_sha256_fingerprints: linesOf(draft.fingerprints),
  },
});

export function SettingsPage(props: { appId: string }) {
  const { appId } = props;
  const { reloadApps } = useSession();
  const [app, setApp] = useState<AppSettings | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    getApp(appId).then(
      (answer) => {
        setApp(answer);
        setDraft(draftOf(answer));
      },
      (caught: unknown) => setLoadError(errorMessage(caught)),
    );
  }, [appId]);

  const save = async (event: Event) => {
    event.preventDefault();
    if (!draft) return;
    setBusy(true);
    setSaveError(null);
    setStatus(null);
    try {
      const saved = await updateApp(appId, patchOf(draft));
      setApp(saved);
      setDraft(draftOf(saved));
      setStatus("Settings saved.");
      reloadApps().catch(() => undefined);
    } catch (caught) {
      setSaveError(
        caught instanceof ApiError && caught.status === 422
          ? `Not saved: ${caught.detail || caught.error}`
          : `Not saved: ${errorMessage(caught)}`,
      );
    } finally {
      setBusy(false);
    }
  };

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) =>
    setDraft((current) => (current ? { ...current, [key]: value } : current));

  const text = (key: keyof Draft) => ({
    value: draft ? String(draft[key]) : "",
    onInput: (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
      set(key, event.currentTarget.value as never),
  });
  const check = (key: keyof Draft) => ({
    checked: draft ? Boolean(draft[key]) : false,
    onChange: (event: { currentTarget: HTMLInputElement }) =>
      set(key, event.currentTarget.checked as never),
  });

  return (
    <Page title="Settings" subtitle={appId}>
      <ErrorText message={loadError} />
      {draft && app ? (
        <form
          class="stack"
          onSubmit={save}
          noValidate
          aria-describedby="settings-error"
          aria-busy={busy}
        >
          <fieldset class="card">
            <legend>App</legend>
            <div class="form-grid">
              <label class="field">
                <span>Name</span>
                <input name="name" autocomplete="off" {...text("name")} />
              </label>
              <p class="field readonly">
                <span>Platform</span>
                <span>{app.platform === "ios" ? "iOS" : "Android"}</span>
              </p>
            </div>
          </fieldset>
          <fieldset class="card">
            <legend>Remote configuration</legend>
            <p class="hint">What the SDKs read when they start.</p>
            <label class="check">
              <input type="checkbox" name="enabled" {...check("enabled")} />
              <span>App enabled (the SDKs send installs and events)</span>
            </label>
            <label class="check">
              <input type="checkbox" name="encryption" {...check("encryption")} />
              <span>Encryption of SDK payloads</span>
            </label>
            <p class="hint">
              Encryption key id: <span class="mono">{app.encryption.key_id ?? "none"}</span>
            </p>
          </fieldset>
          <fieldset class="card">
            <legend>Attribution</legend>
            <label class="check">
              <input type="checkbox" name="attribution_enabled" {...check("attributionEnabled")} />
              <span>Attribution enabled</span>
            </label>
            <div class="form-grid">
              <label class="field">
                <span>Click window (days, 1–30)</span>
                <input
                  type="number"
                  name="click_window_days"
                  min={1}
                  max={30}
                  step={1}
                  inputMode="numeric"
                  {...text("clickWindowDays")}
                />
              </label>
              <label class="field">
                <span>View window (hours)</span>
                <input
                  type="number"
                  name="view_window_hours"
                  min={0}
                  step={1}
                  inputMode="numeric"
                  {...text("viewWindowHours")}
                />
              </label>
              <label class="field">
                <span>Probabilistic window (hours, 1–24)</span>
                <input
                  type="number"
                  name="probabilistic_window_hours"
                  min={1}
                  max={24}
                  step={1}
                  inputMode="numeric"
                  {...text("probabilisticWindowHours")}
                />
              </label>
              <label class="field">
                <span>Confidence floor</span>
                <select
                  name="confidence_floor"
                  value={draft.confidenceFloor}
                  onChange={(event) =>
                    set("confidenceFloor", event.currentTarget.value as ConfidenceFloor)
                  }
                >
                  <option value="low">Low</option>
                  <option value="medium">Medium</option>
                </select>
              </label>
              <label class="field">
                <span>Deep link confidence floor</span>
                <select
                  name="deep_link_confidence_floor"
                  value={draft.deepLinkConfidenceFloor}
                  onChange={(event) =>
                    set(
                      "deepLinkConfidenceFloor",
                      event.currentTarget.value as DeepLinkConfidenceFloor,
                    )
                  }
                >
                  <option value="low">Low</option>
                  <option value="medium">Medium</option>
                  <option value="high">High</option>
                </select>
              </label>
            </div>
            <label class="check">
              <input
                type="checkbox"
                name="probabilistic_android"
                {...check("probabilisticAndroid")}
              />
              <span>Probabilistic matching on Android</span>
            </label>
            <label class="check">
              <input type="checkbox" name="probabilistic_ios" {...check("probabilisticIos")} />
              <span>Probabilistic matching on iOS</span>
            </label>
          </fieldset>
          <fieldset class="card">
            <legend>Links</legend>
            <div class="form-grid">
              <label class="field">
                <span>App Store id</span>
                <input
                  name="app_store_id"
                  autocomplete="off"
                  inputMode="numeric"
                  {...text("appStoreId")}
                />
              </label>
              <label class="field">
                <span>Web URL</span>
                <input type="url" name="web_url" autocomplete="off" {...text("webUrl")} />
              </label>
              <label class="field">
                <span>Apple team id</span>
                <input name="apple_team_id" autocomplete="off" {...text("appleTeamId")} />
              </label>
            </div>
            <label class="field">
              <span>Link hosts (one per line)</span>
              <textarea name="hosts" rows={3} spellcheck={false} {...text("hosts")} />
            </label>
            <label class="field">
              <span>Android SHA-256 fingerprints (one per line)</span>
              <textarea
                name="android_sha256_fingerprints"
                rows={3}
                spellcheck={false}
                class="mono"
                {...text("fingerprints")}
              />
            </label>
          </fieldset>
          <div class="actions">
            <button type="submit" disabled={busy}>
              Save settings
            </button>
            <StatusText message={status} />
          </div>
          <ErrorText id="settings-error" message={saveError} />
        </form>
      ) : loadError ? null : (
        <p class="loading">Loading…</p>
      )}
    </Page>
  );
}
