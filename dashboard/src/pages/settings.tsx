import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { LINK_LIMITS } from "../../../src/links/link-limits.ts";
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
import { changesOf } from "../changes.ts";
import { focusFirstRefused, Problems } from "../components/form-fields.tsx";
import { ErrorText, Page, StatusText } from "../components/page.tsx";
import { oneLine } from "../format.ts";
import { forgetReports } from "../report-cache.ts";
import { useSession, useViewOnly } from "../session.tsx";
import {
  besideByField,
  conflictProblemOf,
  type Problem,
  settingsProblemsOf,
} from "../settings-problems.ts";

/** The form's values as typed: numbers stay text until saved, lists are one item a line. */
interface Draft {
  name: string;
  timeZone: string;
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
  playPackage: string;
  iosBundleId: string;
  webUrl: string;
  hosts: string;
  appleTeamId: string;
  fingerprints: string;
  languages: string;
  previewTitle: string;
  previewDescription: string;
  previewImageUrl: string;
}

const draftOf = (app: AppSettings): Draft => ({
  name: app.name,
  timeZone: app.time_zone,
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
  playPackage: app.links.play_package ?? "",
  iosBundleId: app.links.ios_bundle_id ?? "",
  webUrl: app.links.web_url ?? "",
  hosts: app.links.hosts.join("\n"),
  appleTeamId: app.links.apple_team_id ?? "",
  fingerprints: app.links.android_sha256_fingerprints.join("\n"),
  languages: app.links.languages.join(", "),
  previewTitle: app.links.preview_title ?? "",
  previewDescription: app.links.preview_description ?? "",
  previewImageUrl: app.links.preview_image_url ?? "",
});

/** The zones the browser knows, to pick from; the service checks the one saved. */
const TIME_ZONES: readonly string[] = ["UTC", ...Intl.supportedValuesOf("timeZone")];

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
  time_zone: draft.timeZone.trim(),
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
    play_package: textOrNull(draft.playPackage),
    ios_bundle_id: textOrNull(draft.iosBundleId),
    web_url: textOrNull(draft.webUrl),
    hosts: linesOf(draft.hosts),
    apple_team_id: textOrNull(draft.appleTeamId),
    android_sha256_fingerprints: linesOf(draft.fingerprints),
    languages: draft.languages
      .split(/[\s,]+/)
      .map((language) => language.trim())
      .filter((language) => language !== ""),
    preview_title: textOrNull(draft.previewTitle),
    preview_description: textOrNull(draft.previewDescription),
    preview_image_url: textOrNull(draft.previewImageUrl),
  },
});

const inputId = (name: string) => `settings-${name}`;
const errorId = (name: string) => `settings-${name}-error`;

/** An input's label above it and, when the service refused its value, the reason below it. */
function Field(props: {
  name: string;
  label: string;
  error: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={inputId(props.name)}>{props.label}</label>
      {props.children}
      <FieldError name={props.name} error={props.error} />
    </div>
  );
}

function FieldError(props: { name: string; error: string | undefined }) {
  return props.error ? (
    <span id={errorId(props.name)} class="field-error">
      {props.error}
    </span>
  ) : null;
}

export function SettingsPage(props: { appId: string }) {
  const { appId } = props;
  const { reloadApps } = useSession();
  const [app, setApp] = useState<AppSettings | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  /** What the service refused, each problem in words, beside its input and under the form. */
  const [problems, setProblems] = useState<Problem[]>([]);
  const fieldErrors = besideByField(problems);
  const viewOnly = useViewOnly();
  const form = useRef<HTMLFormElement>(null);
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
    if (!draft || viewOnly) return;
    setBusy(true);
    setProblems([]);
    setStatus(null);
    const patch = app
      ? (changesOf(
          patchOf(draftOf(app)) as Record<string, unknown>,
          patchOf(draft) as Record<string, unknown>,
        ) as AppSettingsPatch)
      : patchOf(draft);
    try {
      const saved = await updateApp(appId, patch);
      // The reports kept for the app count its days in its zone as it was.
      forgetReports(appId);
      setApp(saved);
      setDraft(draftOf(saved));
      setStatus("Settings saved.");
      reloadApps().catch(() => undefined);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422) {
        setProblems(
          settingsProblemsOf(caught.detail || caught.error, {
            hosts: patch.links?.hosts ?? [],
            android_sha256_fingerprints: patch.links?.android_sha256_fingerprints ?? [],
            languages: patch.links?.languages ?? [],
          }),
        );
        focusFirstRefused(form.current);
      } else if (caught instanceof ApiError && caught.status === 409) {
        // An App Store id another app has (src/links/app-settings.ts): the input's value, so
        // it is said beside the input, as a 422 of it would be.
        setProblems([conflictProblemOf(caught.detail || caught.error)]);
        focusFirstRefused(form.current);
      } else {
        setProblems([{ field: null, text: errorMessage(caught) }]);
      }
    } finally {
      setBusy(false);
    }
  };

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) =>
    setDraft((current) => (current ? { ...current, [key]: value } : current));

  /** A changed value is no longer the one refused: its mark goes. */
  const changed = (name: string) =>
    setProblems((current) =>
      current.some((problem) => problem.field === name)
        ? current.filter((problem) => problem.field !== name)
        : current,
    );

  /** An input's id, and its mark and reason when the service refused its value. */
  const control = (name: string) => ({
    id: inputId(name),
    name,
    ...(fieldErrors[name]
      ? { "aria-invalid": "true" as const, "aria-describedby": errorId(name) }
      : {}),
  });

  const text = (key: keyof Draft) => ({
    value: draft ? String(draft[key]) : "",
    onInput: (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => {
      changed(event.currentTarget.name);
      set(key, event.currentTarget.value as never);
    },
  });
  const check = (key: keyof Draft) => ({
    checked: draft ? Boolean(draft[key]) : false,
    onChange: (event: { currentTarget: HTMLInputElement }) => {
      changed(event.currentTarget.name);
      set(key, event.currentTarget.checked as never);
    },
  });
  const choose =
    <K extends "confidenceFloor" | "deepLinkConfidenceFloor">(key: K) =>
    (event: { currentTarget: HTMLSelectElement }) => {
      changed(event.currentTarget.name);
      set(key, event.currentTarget.value as Draft[K]);
    };

  return (
    <Page title="Settings" subtitle={appId}>
      <ErrorText message={loadError} />
      {draft && app ? (
        <form
          ref={form}
          class="stack"
          onSubmit={save}
          noValidate
          aria-describedby="settings-error"
          aria-busy={busy}
        >
          <fieldset class="card" disabled={viewOnly}>
            <legend>App</legend>
            <div class="form-grid aligned">
              <Field name="name" label="Name" error={fieldErrors.name}>
                <input autocomplete="off" {...control("name")} {...text("name")} />
              </Field>
              <p class="field readonly">
                <span>Platform</span>
                <span>{app.platform === "ios" ? "iOS" : "Android"}</span>
              </p>
              <Field name="time_zone" label="Time zone" error={fieldErrors.time_zone}>
                <input
                  autocomplete="off"
                  spellcheck={false}
                  list="settings-time-zones"
                  {...control("time_zone")}
                  {...text("timeZone")}
                />
                <datalist id="settings-time-zones">
                  {TIME_ZONES.map((zone) => (
                    <option key={zone} value={zone} />
                  ))}
                </datalist>
              </Field>
            </div>
            <p class="hint">
              The reports count days in this time zone: an install's day, a cohort's day N, the day
              a cost row is of. An IANA name such as America/Los_Angeles, or UTC.
            </p>
          </fieldset>
          <fieldset class="card" disabled={viewOnly}>
            <legend>Remote configuration</legend>
            <p class="hint">What the SDKs read when they start.</p>
            <label class="check">
              <input type="checkbox" {...control("enabled")} {...check("enabled")} />
              <span>App enabled (the SDKs send installs and events)</span>
            </label>
            <FieldError name="enabled" error={fieldErrors.enabled} />
            <label class="check">
              <input type="checkbox" {...control("encryption")} {...check("encryption")} />
              <span>Encryption of SDK payloads</span>
            </label>
            <FieldError name="encryption" error={fieldErrors.encryption} />
            <p class="hint">
              Encryption key id: <span class="mono">{app.encryption.key_id ?? "none"}</span>
            </p>
          </fieldset>
          <fieldset class="card" disabled={viewOnly}>
            <legend>Attribution</legend>
            <label class="check">
              <input
                type="checkbox"
                {...control("attribution_enabled")}
                {...check("attributionEnabled")}
              />
              <span>Attribution enabled</span>
            </label>
            <FieldError name="attribution_enabled" error={fieldErrors.attribution_enabled} />
            <div class="form-grid aligned">
              <Field
                name="click_window_days"
                label="Click window (days, 1–30)"
                error={fieldErrors.click_window_days}
              >
                <input
                  type="number"
                  min={1}
                  max={30}
                  step={1}
                  inputMode="numeric"
                  {...control("click_window_days")}
                  {...text("clickWindowDays")}
                />
              </Field>
              <Field
                name="view_window_hours"
                label="View window (hours, 1–168)"
                error={fieldErrors.view_window_hours}
              >
                <input
                  type="number"
                  min={1}
                  max={168}
                  step={1}
                  inputMode="numeric"
                  {...control("view_window_hours")}
                  {...text("viewWindowHours")}
                />
              </Field>
              <Field
                name="probabilistic_window_hours"
                label="Probabilistic window (hours, 1–24)"
                error={fieldErrors.probabilistic_window_hours}
              >
                <input
                  type="number"
                  min={1}
                  max={24}
                  step={1}
                  inputMode="numeric"
                  {...control("probabilistic_window_hours")}
                  {...text("probabilisticWindowHours")}
                />
              </Field>
              <Field
                name="confidence_floor"
                label="Confidence floor"
                error={fieldErrors.confidence_floor}
              >
                <select
                  {...control("confidence_floor")}
                  value={draft.confidenceFloor}
                  onChange={choose("confidenceFloor")}
                >
                  <option value="low">Low</option>
                  <option value="medium">Medium</option>
                </select>
              </Field>
              <Field
                name="deep_link_confidence_floor"
                label="Deep link confidence floor"
                error={fieldErrors.deep_link_confidence_floor}
              >
                <select
                  {...control("deep_link_confidence_floor")}
                  value={draft.deepLinkConfidenceFloor}
                  onChange={choose("deepLinkConfidenceFloor")}
                >
                  <option value="low">Low</option>
                  <option value="medium">Medium</option>
                  <option value="high">High</option>
                </select>
              </Field>
            </div>
            <label class="check">
              <input
                type="checkbox"
                {...control("probabilistic_android")}
                {...check("probabilisticAndroid")}
              />
              <span>Probabilistic matching on Android</span>
            </label>
            <FieldError name="probabilistic_android" error={fieldErrors.probabilistic_android} />
            <label class="check">
              <input
                type="checkbox"
                {...control("probabilistic_ios")}
                {...check("probabilisticIos")}
              />
              <span>Probabilistic matching on iOS, for users who allowed tracking (ATT)</span>
            </label>
            <FieldError name="probabilistic_ios" error={fieldErrors.probabilistic_ios} />
          </fieldset>
          <fieldset class="card" disabled={viewOnly}>
            <legend>Links</legend>
            <div class="form-grid aligned">
              <Field name="app_store_id" label="App Store id" error={fieldErrors.app_store_id}>
                <input
                  autocomplete="off"
                  inputMode="numeric"
                  {...control("app_store_id")}
                  {...text("appStoreId")}
                />
              </Field>
              {app.platform === "ios" && (
                // An Android app's package is its id; an iOS app may name its Android build's.
                <Field
                  name="play_package"
                  label="Google Play package"
                  error={fieldErrors.play_package}
                >
                  <input
                    autocomplete="off"
                    spellcheck={false}
                    {...control("play_package")}
                    {...text("playPackage")}
                  />
                </Field>
              )}
              {app.platform === "android" && (
                // An iOS app's bundle id is its id; an Android app may name its iOS build's.
                <Field name="ios_bundle_id" label="iOS bundle id" error={fieldErrors.ios_bundle_id}>
                  <input
                    autocomplete="off"
                    spellcheck={false}
                    {...control("ios_bundle_id")}
                    {...text("iosBundleId")}
                  />
                </Field>
              )}
              <Field name="web_url" label="Web URL" error={fieldErrors.web_url}>
                <input type="url" autocomplete="off" {...control("web_url")} {...text("webUrl")} />
              </Field>
              <Field name="apple_team_id" label="Apple team id" error={fieldErrors.apple_team_id}>
                <input autocomplete="off" {...control("apple_team_id")} {...text("appleTeamId")} />
              </Field>
            </div>
            <Field name="hosts" label="Link hosts (one per line)" error={fieldErrors.hosts}>
              <textarea rows={3} spellcheck={false} {...control("hosts")} {...text("hosts")} />
            </Field>
            <Field
              name="android_sha256_fingerprints"
              label="Android SHA-256 fingerprints (one per line)"
              error={fieldErrors.android_sha256_fingerprints}
            >
              <textarea
                rows={3}
                spellcheck={false}
                class="mono"
                {...control("android_sha256_fingerprints")}
                {...text("fingerprints")}
              />
            </Field>
            <div class="form-grid aligned">
              <Field
                name="languages"
                label="Landing page languages (en, de, fr, es, pt, it, ja; first is the default)"
                error={fieldErrors.languages}
              >
                <input
                  autocomplete="off"
                  spellcheck={false}
                  placeholder="en"
                  {...control("languages")}
                  {...text("languages")}
                />
              </Field>
              <Field
                name="preview_title"
                label="Default preview title"
                error={fieldErrors.preview_title}
              >
                <input
                  autocomplete="off"
                  maxLength={LINK_LIMITS.maxPreviewTitleLength}
                  {...control("preview_title")}
                  {...text("previewTitle")}
                />
              </Field>
              <Field
                name="preview_image_url"
                label="Default preview image URL (https)"
                error={fieldErrors.preview_image_url}
              >
                <input
                  type="url"
                  autocomplete="off"
                  {...control("preview_image_url")}
                  {...text("previewImageUrl")}
                />
              </Field>
            </div>
            <Field
              name="preview_description"
              label="Default preview description"
              error={fieldErrors.preview_description}
            >
              <textarea
                rows={2}
                maxLength={LINK_LIMITS.maxPreviewDescriptionLength}
                {...control("preview_description")}
                {...text("previewDescription")}
                onInput={(event) => {
                  changed(event.currentTarget.name);
                  set("previewDescription", oneLine(event.currentTarget.value));
                }}
              />
            </Field>
          </fieldset>
          {viewOnly ? null : (
            <div class="actions">
              <button type="submit" disabled={busy}>
                Save settings
              </button>
              <StatusText message={status} />
            </div>
          )}
          <Problems id="settings-error" problems={problems} />
        </form>
      ) : loadError ? null : (
        <p class="loading">Loading…</p>
      )}
    </Page>
  );
}
