import { useLayoutEffect, useRef, useState } from "preact/hooks";
import {
  ApiError,
  type CatalogPartner,
  errorMessage,
  type HttpMethod,
  type InstallScope,
  type PartnerCatalog,
  type PartnerConfig,
  savePartnerConfig,
  saveWebhook,
  type Webhook,
} from "../api.ts";
import {
  Field,
  FieldError,
  fieldProps,
  focusFirstRefused,
  Problems,
} from "../components/form-fields.tsx";
import {
  byField,
  CUSTOM,
  draftOf,
  headerLinesRefused,
  type MappingRow,
  mappingRow,
  newDraft,
  type PartnerDraft,
  type Problem,
  partnerProblemsOf,
  requestOf,
  takesEvents,
  valueFieldsOf,
  webhookProblemsOf,
} from "./partner-draft.ts";

const CONFIG_ID = /^[A-Za-z0-9_-]{1,64}$/;
const ID_RULE = "must be 1 to 64 of letters, digits, _ and -";

/**
 * A partner configuration, new or changed: a catalog partner or a custom template, its values
 * (a secret one saved before is kept when left empty), the installs that go, the event mapping,
 * the window and the switch.
 */
export function PartnerForm(props: {
  appId: string;
  catalog: PartnerCatalog;
  config: PartnerConfig | null;
  takenIds: readonly string[];
  onSaved: (config: PartnerConfig) => void;
  onCancel: () => void;
}) {
  const { appId, catalog, config } = props;
  const partners = catalog.data;
  const [draft, setDraft] = useState<PartnerDraft>(() =>
    config ? draftOf(config) : newDraft(partners[0], partners[0]?.id ?? ""),
  );
  const [problems, setProblems] = useState<Problem[]>([]);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // On mount, before the next event: a person (or a test) typing at once keeps the focus.
  useLayoutEffect(() => heading.current?.focus(), []);

  const partner: CatalogPartner | undefined = partners.find((p) => p.id === draft.partner);
  const custom = draft.partner === CUSTOM;
  const valueFields = valueFieldsOf(draft, partner);
  const events = takesEvents(draft, partner);
  /** The secret values saved for this partner: kept when their input is left empty. */
  const saved = config && config.partner === draft.partner ? config.sealed_values : [];
  const errors = byField(problems);
  const { idOf, control } = fieldProps("partner-form", errors);
  const errorOf = (field: string) => errors[field];

  const update = (change: Partial<PartnerDraft>, ...fields: string[]) => {
    setDraft((current) => ({ ...current, ...change }));
    // A changed value is no longer the one refused: its mark goes.
    if (fields.some((field) => errors[field] !== undefined)) {
      setProblems((current) => current.filter((p) => !p.field || !fields.includes(p.field)));
    }
  };

  const choosePartner = (id: string) => {
    const chosen = partners.find((p) => p.id === id);
    setProblems([]);
    setDraft((current) => {
      const fresh = newDraft(chosen, current.id);
      // An id still the one suggested for the partner before follows the new partner.
      const suggested = !config && (current.id === "" || current.id === current.partner);
      return {
        ...fresh,
        partner: id,
        id: suggested ? (id === CUSTOM ? "" : id) : current.id,
        mappings: current.mappings,
        windowDays: current.windowDays,
        enabled: current.enabled,
      };
    });
  };

  const setMapping = (key: number, change: Partial<MappingRow>, field: string) =>
    update(
      { mappings: draft.mappings.map((row) => (row.key === key ? { ...row, ...change } : row)) },
      field,
      "events",
    );

  /** A request's headers, one `Name: value` a line (`install_headers`, `event_headers`). */
  const headersField = (kind: "install" | "event") => {
    const field = `${kind}_headers`;
    const key = kind === "install" ? "installHeaders" : "eventHeaders";
    return (
      <Field
        id={idOf(field)}
        label={`${kind === "install" ? "Install" : "Event"} headers (optional, one Name: value a line)`}
        error={errorOf(field)}
      >
        <textarea
          name={field}
          rows={2}
          class="mono"
          spellcheck={false}
          placeholder="Authorization: Bearer {partner.api_key}"
          {...control(field)}
          value={draft[key]}
          onInput={(event) => update({ [key]: event.currentTarget.value }, field)}
        />
      </Field>
    );
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const id = draft.id.trim();
    const own: Problem[] = [];
    if (!config && !CONFIG_ID.test(id))
      own.push({ field: "id", text: `Configuration id ${ID_RULE}.` });
    else if (!config && props.takenIds.includes(id)) {
      own.push({
        field: "id",
        text: `Configuration id ${id} is taken: choose another, or edit that configuration.`,
      });
    }
    if (draft.partner === CUSTOM) {
      for (const [field, which, text] of [
        ["install_headers", "Install", draft.installHeaders],
        ["event_headers", "Event", draft.eventHeaders],
      ] as const) {
        const lines = headerLinesRefused(text);
        if (lines.length > 0) {
          own.push({
            field,
            text: `${which} headers: ${lines.length > 1 ? "lines" : "line"} ${lines.join(", ")} ${lines.length > 1 ? "are" : "is"} not Name: value.`,
          });
        }
      }
    }
    if (own.length > 0) {
      setProblems(own);
      focusFirstRefused(form.current);
      return;
    }
    setBusy(true);
    setProblems([]);
    try {
      props.onSaved(await savePartnerConfig(appId, id, requestOf(draft, partner, saved)));
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422) {
        setProblems(partnerProblemsOf(caught.detail || caught.error, draft, partner));
        focusFirstRefused(form.current);
      } else {
        setProblems([{ field: null, text: errorMessage(caught) }]);
      }
    } finally {
      setBusy(false);
    }
  };

  const headingId = "partner-form-heading";
  const theirNames = partner?.event_names ?? null;

  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        {config ? `Partner ${config.id}` : "Add a partner"}
      </h2>
      <form
        ref={form}
        class="stack"
        onSubmit={submit}
        noValidate
        aria-labelledby={headingId}
        aria-describedby="partner-form-problems"
        aria-busy={busy}
      >
        <div class="form-grid">
          <Field
            id={idOf("partner")}
            label="Partner"
            error={errorOf("partner")}
            hint={
              custom ? "A partner the catalog lacks: write its requests below." : partner?.notes
            }
            hintId="partner-form-partner-hint"
          >
            <select
              name="partner"
              {...control("partner", "partner-form-partner-hint")}
              value={draft.partner}
              onChange={(event) => choosePartner(event.currentTarget.value)}
            >
              {partners.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
              <option value={CUSTOM}>Custom template</option>
            </select>
          </Field>
          {config ? (
            <p class="field readonly">
              <span>Configuration id</span>
              <span class="mono">{config.id}</span>
            </p>
          ) : (
            <Field
              id={idOf("id")}
              label="Configuration id"
              error={errorOf("id")}
              hint="Letters, digits, _ and -; names it in the log."
              hintId="partner-form-id-hint"
            >
              <input
                name="config_id"
                autocomplete="off"
                spellcheck={false}
                {...control("id", "partner-form-id-hint")}
                value={draft.id}
                onInput={(event) => update({ id: event.currentTarget.value }, "id")}
              />
            </Field>
          )}
        </div>

        {custom ? (
          <fieldset class="stack">
            <legend>Custom template</legend>
            <p class="hint">
              Each URL is https, with macros in braces, such as{" "}
              <span class="mono">{"{advertising_id}"}</span>,{" "}
              <span class="mono">{"{click.click_id}"}</span> (a parameter of the tapped link) or{" "}
              <span class="mono">{"{partner.api_key}"}</span> (a value you give below). Values are
              URL-encoded; an unknown fact is empty.
            </p>
            <div class="form-grid">
              <Field id={idOf("method")} label="Method" error={errorOf("method")}>
                <select
                  name="method"
                  {...control("method")}
                  value={draft.method}
                  onChange={(event) =>
                    update({ method: event.currentTarget.value as HttpMethod }, "method")
                  }
                >
                  <option value="GET">GET</option>
                  <option value="POST">POST (with a JSON body)</option>
                </select>
              </Field>
            </div>
            <Field
              id={idOf("install_url")}
              label="Install URL (empty: no install postbacks)"
              error={errorOf("install_url")}
            >
              <input
                name="install_url"
                type="url"
                class="mono"
                autocomplete="off"
                spellcheck={false}
                placeholder="https://postbacks.example.net/install?id={advertising_id}"
                {...control("install_url")}
                value={draft.installUrl}
                onInput={(event) =>
                  update({ installUrl: event.currentTarget.value }, "install_url")
                }
              />
            </Field>
            {headersField("install")}
            {draft.method === "POST" ? (
              <Field
                id={idOf("install_body")}
                label="Install body (JSON, optional)"
                error={errorOf("install_body")}
              >
                <textarea
                  name="install_body"
                  rows={3}
                  class="mono"
                  spellcheck={false}
                  placeholder='{"event": "install", "id": "{advertising_id}"}'
                  {...control("install_body")}
                  value={draft.installBody}
                  onInput={(event) =>
                    update({ installBody: event.currentTarget.value }, "install_body")
                  }
                />
              </Field>
            ) : null}
            <Field
              id={idOf("event_url")}
              label="Event URL (empty: no event postbacks)"
              error={errorOf("event_url")}
            >
              <input
                name="event_url"
                type="url"
                class="mono"
                autocomplete="off"
                spellcheck={false}
                placeholder="https://postbacks.example.net/event?name={event_name}"
                {...control("event_url")}
                value={draft.eventUrl}
                onInput={(event) => update({ eventUrl: event.currentTarget.value }, "event_url")}
              />
            </Field>
            {headersField("event")}
            {draft.method === "POST" ? (
              <Field
                id={idOf("event_body")}
                label="Event body (JSON, optional)"
                error={errorOf("event_body")}
              >
                <textarea
                  name="event_body"
                  rows={3}
                  class="mono"
                  spellcheck={false}
                  placeholder='{"event": "{event_name}", "revenue": "{revenue}"}'
                  {...control("event_body")}
                  value={draft.eventBody}
                  onInput={(event) =>
                    update({ eventBody: event.currentTarget.value }, "event_body")
                  }
                />
              </Field>
            ) : null}
            <details class="macros">
              <summary>The macros a template may use</summary>
              <ul class="macro-list">
                {catalog.macros.map((macro) => (
                  <li key={macro.name}>
                    <span class="mono">{`{${macro.name}}`}</span>: {macro.description}
                  </li>
                ))}
              </ul>
            </details>
          </fieldset>
        ) : null}

        {valueFields.length > 0 ? (
          <fieldset class="stack">
            <legend>The partner's values</legend>
            {errorOf("values") ? (
              <FieldError id={idOf("values")} error={errorOf("values")} />
            ) : null}
            <div class="form-grid">
              {valueFields.map((field) => {
                const name = `value:${field.name}`;
                const kept = field.secret && saved.includes(field.name);
                const hintId = `${idOf(name)}-hint`;
                return (
                  <div class="field" key={field.name}>
                    <label for={idOf(name)}>
                      {custom ? <span class="mono">{field.name}</span> : field.label}
                      {field.secret ? " (secret)" : ""}
                    </label>
                    <input
                      name={`value_${field.name}`}
                      type={field.secret ? "password" : field.kind === "url" ? "url" : "text"}
                      autocomplete={field.secret ? "new-password" : "off"}
                      spellcheck={false}
                      placeholder={kept ? "saved, leave empty to keep" : undefined}
                      {...control(name, hintId)}
                      value={draft.values[field.name] ?? ""}
                      onInput={(event) =>
                        update(
                          { values: { ...draft.values, [field.name]: event.currentTarget.value } },
                          name,
                        )
                      }
                    />
                    <small id={hintId} class="field-hint">
                      {kept ? "Saved, leave empty to keep. " : ""}
                      {custom ? null : field.description}
                    </small>
                    {custom ? (
                      <label class="check">
                        <input
                          type="checkbox"
                          name={`secret_${field.name}`}
                          checked={field.secret}
                          onChange={(event) => {
                            const on = event.currentTarget.checked;
                            update({
                              secretNames: on
                                ? [...draft.secretNames, field.name]
                                : draft.secretNames.filter((n) => n !== field.name),
                            });
                          }}
                        />
                        <span>Secret: kept sealed, masked in the log, never shown again</span>
                      </label>
                    ) : null}
                    <FieldError id={`${idOf(name)}-error`} error={errorOf(name)} />
                  </div>
                );
              })}
            </div>
          </fieldset>
        ) : null}

        <fieldset class="stack">
          <legend>Installs</legend>
          <Field
            id={idOf("media_sources")}
            label="Media sources (comma-separated)"
            error={errorOf("media_sources")}
            hint={
              partner && partner.media_sources.length > 0
                ? `The media sources whose installs are this partner's, as links and network touches name them. Empty: ${partner.media_sources.join(", ")}.`
                : "The media sources whose installs are this partner's, as links and network touches name them."
            }
            hintId="partner-form-media-hint"
          >
            <input
              name="media_sources"
              autocomplete="off"
              spellcheck={false}
              {...control("media_sources", "partner-form-media-hint")}
              value={draft.mediaSources}
              onInput={(event) =>
                update({ mediaSources: event.currentTarget.value }, "media_sources")
              }
            />
          </Field>
          <div
            role="radiogroup"
            aria-label="Which installs go"
            {...control("installs")}
            class="choices"
          >
            {(
              [
                ["won", "Only the installs these media sources won"],
                [
                  "all",
                  "Every install (send all): for a network that attributes installs itself; it never learns of another's campaigns",
                ],
              ] as [InstallScope, string][]
            ).map(([value, label]) => (
              <label class="check" key={value}>
                <input
                  type="radio"
                  name="installs"
                  value={value}
                  checked={draft.installs === value}
                  onChange={() => update({ installs: value }, "installs")}
                />
                <span>{label}</span>
              </label>
            ))}
          </div>
          <FieldError id={`${idOf("installs")}-error`} error={errorOf("installs")} />
          <Field
            id={idOf("tcf_vendor_id")}
            label="TCF vendor id (Global Vendor List)"
            error={errorOf("tcf_vendor_id")}
            hint="An install whose consent platform's TCF string gives this vendor no consent is not reported to it. Empty: none."
            hintId="partner-form-vendor-hint"
          >
            <input
              name="tcf_vendor_id"
              type="number"
              min={1}
              max={65535}
              step={1}
              inputMode="numeric"
              {...control("tcf_vendor_id", "partner-form-vendor-hint")}
              value={draft.vendorId}
              onInput={(event) => update({ vendorId: event.currentTarget.value }, "tcf_vendor_id")}
            />
          </Field>
        </fieldset>

        <fieldset class="stack">
          <legend>Events</legend>
          {events ? (
            <>
              <p class="hint" id="partner-form-events-hint">
                Our event name (the export's <span class="mono">event_name</span>, such as{" "}
                <span class="mono">service_purchase</span>) and the partner's name for it. An event
                not mapped is not sent to this partner.
              </p>
              <FieldError id={`${idOf("events")}-error`} error={errorOf("events")} />
              {draft.mappings.length === 0 ? <p>No events mapped.</p> : null}
              {draft.mappings.map((row, index) => {
                const ours = `mapping:${row.key}`;
                const theirs = `mapping-name:${row.key}`;
                const options =
                  theirNames && row.theirs !== "" && !theirNames.includes(row.theirs)
                    ? [row.theirs, ...theirNames]
                    : theirNames;
                return (
                  <div class="mapping-row" key={row.key} data-mapping-row={index}>
                    <Field id={idOf(ours)} label="Our event name" error={errorOf(ours)}>
                      <input
                        name={`event_${index}_ours`}
                        autocomplete="off"
                        spellcheck={false}
                        placeholder="service_purchase"
                        {...control(ours)}
                        value={row.ours}
                        onInput={(event) =>
                          setMapping(row.key, { ours: event.currentTarget.value }, ours)
                        }
                      />
                    </Field>
                    <Field id={idOf(theirs)} label="The partner's name" error={errorOf(theirs)}>
                      {options ? (
                        <select
                          name={`event_${index}_theirs`}
                          {...control(theirs)}
                          value={row.theirs}
                          onChange={(event) =>
                            setMapping(row.key, { theirs: event.currentTarget.value }, theirs)
                          }
                        >
                          <option value="">Choose…</option>
                          {options.map((name) => (
                            <option key={name} value={name}>
                              {name}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <input
                          name={`event_${index}_theirs`}
                          autocomplete="off"
                          spellcheck={false}
                          placeholder="purchase"
                          {...control(theirs)}
                          value={row.theirs}
                          onInput={(event) =>
                            setMapping(row.key, { theirs: event.currentTarget.value }, theirs)
                          }
                        />
                      )}
                    </Field>
                    <label class="check">
                      <input
                        type="checkbox"
                        name={`event_${index}_revenue`}
                        checked={row.revenue}
                        onChange={(event) =>
                          setMapping(row.key, { revenue: event.currentTarget.checked }, ours)
                        }
                      />
                      <span>With revenue</span>
                    </label>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Remove the mapping of ${row.ours || `row ${index + 1}`}`}
                      onClick={() =>
                        update(
                          { mappings: draft.mappings.filter((other) => other.key !== row.key) },
                          ours,
                          theirs,
                        )
                      }
                    >
                      Remove
                    </button>
                  </div>
                );
              })}
              <div class="actions">
                <button
                  type="button"
                  class="secondary"
                  onClick={() => update({ mappings: [...draft.mappings, mappingRow()] })}
                >
                  Add an event
                </button>
              </div>
              <div class="form-grid">
                <Field
                  id={idOf("event_window_days")}
                  label="Event window (days after the install, 1–365)"
                  error={errorOf("event_window_days")}
                >
                  <input
                    name="event_window_days"
                    type="number"
                    min={1}
                    max={365}
                    step={1}
                    inputMode="numeric"
                    {...control("event_window_days")}
                    value={draft.windowDays}
                    onInput={(event) =>
                      update({ windowDays: event.currentTarget.value }, "event_window_days")
                    }
                  />
                </Field>
              </div>
            </>
          ) : (
            <p class="hint">
              {custom
                ? "Give an event URL to send events."
                : `${partner?.name ?? "This partner"} takes no event postbacks.`}
            </p>
          )}
        </fieldset>

        <label class="check">
          <input
            type="checkbox"
            name="enabled"
            {...control("enabled")}
            checked={draft.enabled}
            onChange={(event) => update({ enabled: event.currentTarget.checked }, "enabled")}
          />
          <span>On: send this partner's postbacks</span>
        </label>
        <FieldError id={`${idOf("enabled")}-error`} error={errorOf("enabled")} />

        <div class="actions">
          <button type="submit" disabled={busy}>
            Save partner
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
        <Problems id="partner-form-problems" problems={problems} />
      </form>
    </section>
  );
}

/** A webhook, new or changed: its URL, its switch, and a new signing secret when asked. */
export function WebhookForm(props: {
  appId: string;
  webhook: Webhook | null;
  takenIds: readonly string[];
  onSaved: (webhook: Webhook) => void;
  onCancel: () => void;
}) {
  const { appId, webhook } = props;
  const [id, setId] = useState(webhook ? webhook.id : props.takenIds.length === 0 ? "backend" : "");
  const [url, setUrl] = useState(webhook?.url ?? "");
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true);
  const [rotate, setRotate] = useState(false);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // On mount, before the next event: a person (or a test) typing at once keeps the focus.
  useLayoutEffect(() => heading.current?.focus(), []);
  const errors = byField(problems);
  const { idOf, control } = fieldProps("webhook-form", errors);
  /** The service masks a credential of a listed webhook's URL: sent back, it keeps the stored. */
  const masked = webhook?.url.includes("=***") === true;

  const submit = async (event: Event) => {
    event.preventDefault();
    const chosen = id.trim();
    if (!webhook && !CONFIG_ID.test(chosen)) {
      setProblems([{ field: "id", text: `Webhook id ${ID_RULE}.` }]);
      focusFirstRefused(form.current);
      return;
    }
    if (!webhook && props.takenIds.includes(chosen)) {
      setProblems([
        { field: "id", text: `Webhook id ${chosen} is taken: choose another, or edit that one.` },
      ]);
      focusFirstRefused(form.current);
      return;
    }
    setBusy(true);
    setProblems([]);
    try {
      props.onSaved(
        await saveWebhook(appId, chosen, {
          url: url.trim(),
          enabled,
          ...(rotate ? { rotate_secret: true } : {}),
        }),
      );
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422) {
        setProblems(webhookProblemsOf(caught.detail || caught.error));
        focusFirstRefused(form.current);
      } else {
        setProblems([{ field: null, text: errorMessage(caught) }]);
      }
    } finally {
      setBusy(false);
    }
  };

  const headingId = "webhook-form-heading";
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        {webhook ? `Webhook ${webhook.id}` : "Add a webhook"}
      </h2>
      <form
        ref={form}
        class="stack"
        onSubmit={submit}
        noValidate
        aria-labelledby={headingId}
        aria-describedby="webhook-form-problems"
        aria-busy={busy}
      >
        <div class="form-grid">
          {webhook ? null : (
            <Field id={idOf("id")} label="Webhook id" error={errors.id}>
              <input
                name="webhook_id"
                autocomplete="off"
                spellcheck={false}
                {...control("id")}
                value={id}
                onInput={(event) => {
                  setId(event.currentTarget.value);
                  setProblems((current) => current.filter((p) => p.field !== "id"));
                }}
              />
            </Field>
          )}
          <Field
            id={idOf("url")}
            label="URL (https)"
            error={errors.url}
            hintId={masked ? idOf("url-hint") : undefined}
            hint={
              masked
                ? "A credential in the URL shows as ***: saved as it is, the URL keeps the stored one. To change it, type the whole URL."
                : undefined
            }
          >
            <input
              name="webhook_url"
              type="url"
              autocomplete="off"
              spellcheck={false}
              placeholder="https://api.example.com/attribution-webhook"
              {...control("url", masked ? idOf("url-hint") : undefined)}
              value={url}
              onInput={(event) => {
                setUrl(event.currentTarget.value);
                setProblems((current) => current.filter((p) => p.field !== "url"));
              }}
            />
          </Field>
        </div>
        <label class="check">
          <input
            type="checkbox"
            name="webhook_enabled"
            checked={enabled}
            onChange={(event) => setEnabled(event.currentTarget.checked)}
          />
          <span>On: send deliveries to this URL</span>
        </label>
        {webhook ? (
          <label class="check">
            <input
              type="checkbox"
              name="rotate_secret"
              checked={rotate}
              onChange={(event) => setRotate(event.currentTarget.checked)}
            />
            <span>
              Make a new signing secret (the one in use still signs beside it for 24 hours)
            </span>
          </label>
        ) : (
          <p class="hint">A new webhook gets its signing secret, shown once when it is saved.</p>
        )}
        <div class="actions">
          <button type="submit" disabled={busy}>
            Save webhook
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
        <Problems id="webhook-form-problems" problems={problems} />
      </form>
    </section>
  );
}
