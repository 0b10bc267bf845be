import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import {
  type AdNetworkName,
  ApiError,
  type CoarseValue,
  type ConversionSchema,
  errorMessage,
  getAdNetworks,
  getApp,
  getConversionSchema,
  saveAdNetworks,
  saveConversionSchema,
} from "../api.ts";
import {
  Field,
  FieldError,
  fieldProps,
  focusFirstRefused,
  Problems,
} from "../components/form-fields.tsx";
import { ErrorText, Page, StatusText, TableScroll } from "../components/page.tsx";
import { formatTime } from "../format.ts";
import { appPath, useViewOnly } from "../session.tsx";
import {
  besideByField,
  COARSE_VALUES,
  draftOf,
  MAX_FINE_VALUE,
  networkProblemsOf,
  type Problem,
  RULE_FIELDS,
  type RuleField,
  type RuleRow,
  requestOf,
  ruleField,
  ruleRow,
  type SchemaDraft,
  schemaProblemsOf,
  WINDOWS,
  windowField,
} from "./skadnetwork-draft.ts";

/**
 * The app's SKAdNetwork settings (docs/skadnetwork.md): the conversion value schema its iOS
 * SDKs apply, and the media sources its ad network ids are reported as.
 */
export function SkadnetworkPage(props: { appId: string }) {
  const { appId } = props;
  // Apple's postbacks name the app by its App Store id, which is how the service finds its
  // app: without one, none reaches this app, whatever its platform.
  const [withoutStoreId, setWithoutStoreId] = useState<{
    appId: string;
    platform: string;
  } | null>(null);
  useEffect(() => {
    let current = true;
    setWithoutStoreId(null);
    getApp(appId).then(
      (app) => {
        if (current && app.links.app_store_id === null) {
          setWithoutStoreId({ appId, platform: app.platform });
        }
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [appId]);
  const missing = withoutStoreId?.appId === appId ? withoutStoreId : null;
  return (
    <Page title="SKAdNetwork" subtitle={appId}>
      <p class="intro hint">
        Apple's postbacks of the app's iOS installs (SKAdNetwork and AdAttributionKit) carry the
        conversion values the app set on the device. The schema says which values the app sets for
        what its users do, and what each value means in the overview's SKAdNetwork section.
      </p>
      {missing ? (
        <p class="warning" data-testid="no-app-store-id">
          {missing.platform === "ios"
            ? "This app has no App Store id, and Apple's postbacks name an app by it, so none reaches this app. "
            : "This app is registered for Android and has no App Store id, so no postback from Apple reaches it. "}
          Give its App Store id on the <Link href={appPath(appId, "settings")}>Settings page</Link>{" "}
          to measure its iOS installs.
        </p>
      ) : null}
      <SchemaEditor appId={appId} />
      <NetworkNames appId={appId} />
    </Page>
  );
}

const WINDOW_HINTS = [
  "Each rule met gives its fine value and coarse value; the app sets the highest of the rules met, and never lowers one.",
  "Coarse values only: Apple sends no fine value after the first window.",
  "Coarse values only.",
] as const;

function SchemaEditor(props: { appId: string }) {
  const { appId } = props;
  /** undefined while loading; null: the app has none yet. */
  const [schema, setSchema] = useState<ConversionSchema | null | undefined>(undefined);
  const [draft, setDraft] = useState<SchemaDraft>(() => draftOf(null));
  const [loadError, setLoadError] = useState<string | null>(null);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const viewOnly = useViewOnly();

  useEffect(() => {
    getConversionSchema(appId).then(
      (answer) => {
        setSchema(answer);
        setDraft(draftOf(answer));
      },
      (caught: unknown) => setLoadError(errorMessage(caught)),
    );
  }, [appId]);

  const errors = besideByField(problems);
  const { idOf, control } = fieldProps("schema", errors);

  /** A changed value is no longer the one refused: its mark goes. */
  const clear = (...fields: string[]) => {
    if (fields.some((field) => errors[field] !== undefined)) {
      setProblems((current) => current.filter((p) => !p.field || !fields.includes(p.field)));
    }
  };

  const setRows = (window: number, rows: (current: readonly RuleRow[]) => readonly RuleRow[]) =>
    setDraft((current) => current.map((each, index) => (index === window ? rows(each) : each)));

  const change = (window: number, key: number, field: RuleField, patch: Partial<RuleRow>) => {
    setStatus(null);
    setRows(window, (rows) => rows.map((row) => (row.key === key ? { ...row, ...patch } : row)));
    clear(ruleField(key, field), windowField(window));
  };

  const addRule = (window: number) => {
    setStatus(null);
    const row = ruleRow();
    setRows(window, (rows) => [...rows, row]);
    clear(windowField(window));
    // The new rule's first input, once it is there.
    requestAnimationFrame(() =>
      document.getElementById(idOf(ruleField(row.key, "event")))?.focus(),
    );
  };

  const removeRule = (window: number, row: RuleRow) => {
    setStatus(null);
    setRows(window, (rows) => rows.filter((other) => other.key !== row.key));
    clear(...Object.keys(RULE_FIELDS).map((field) => ruleField(row.key, field as RuleField)));
    // Focus stays in the window: on its Add button, which follows its rules.
    requestAnimationFrame(() => document.getElementById(`schema-add-${window}`)?.focus());
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblems([]);
    setStatus(null);
    try {
      const saved = await saveConversionSchema(appId, requestOf(draft));
      setSchema(saved);
      setDraft(draftOf(saved));
      setStatus(
        `Schema saved as version ${saved.version}. The app's iOS SDKs take it at their next configuration refresh.`,
      );
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422) {
        setProblems(schemaProblemsOf(caught.detail || caught.error, draft));
        focusFirstRefused(form.current);
      } else {
        const message = errorMessage(caught);
        setProblems([{ field: null, beside: message, text: message }]);
      }
    } finally {
      setBusy(false);
    }
  };

  const headingId = "schema-heading";
  const rules = draft.reduce((sum, rows) => sum + rows.length, 0);

  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Conversion value schema</h2>
      <ErrorText message={loadError} />
      {schema === undefined ? (
        loadError ? null : (
          <p class="loading">Loading…</p>
        )
      ) : (
        <>
          <p data-testid="schema-version">
            {schema
              ? `Version ${schema.version}, saved ${formatTime(schema.updated_at)}.`
              : "No schema yet: the app's iOS SDKs set no conversion values until one is saved."}
          </p>
          <form
            ref={form}
            class="stack"
            onSubmit={submit}
            noValidate
            aria-labelledby={headingId}
            aria-describedby="schema-problems"
            aria-busy={busy}
          >
            <p class="hint">
              A rule names an event as the export writes it (
              <span class="mono">service_purchase</span>) and, if it must, how many times it
              happened in the window, its revenue there in USD (from, included, up to below,
              excluded) or a numeric parameter one occurrence reached (
              <span class="mono">level</span> at least 10). Locking a window ends its updates, so
              Apple sends its postback sooner.
            </p>
            {WINDOWS.map((window, index) => {
              const rows = draft[index] ?? [];
              const legendId = `schema-window-${index}`;
              return (
                <fieldset
                  key={window.name}
                  class="stack window"
                  disabled={viewOnly}
                  aria-describedby={`${legendId}-hint`}
                  data-window={index}
                >
                  <legend id={legendId}>
                    {window.name}: {window.span}
                  </legend>
                  <p class="hint" id={`${legendId}-hint`}>
                    {WINDOW_HINTS[index]}
                  </p>
                  <FieldError
                    id={`${idOf(windowField(index))}-error`}
                    error={errors[windowField(index)]}
                  />
                  {rows.length === 0 ? <p class="empty">No rules in this window.</p> : null}
                  {rows.map((row, position) => (
                    <RuleEditor
                      key={row.key}
                      window={index}
                      position={position}
                      row={row}
                      errors={errors}
                      onChange={(field, patch) => change(index, row.key, field, patch)}
                      onRemove={viewOnly ? null : () => removeRule(index, row)}
                    />
                  ))}
                  {viewOnly ? null : (
                    <div class="actions">
                      <button
                        type="button"
                        class="secondary"
                        {...control(windowField(index))}
                        id={`schema-add-${index}`}
                        aria-label={`Add a rule to ${window.name.toLowerCase()}`}
                        onClick={() => addRule(index)}
                      >
                        Add a rule
                      </button>
                    </div>
                  )}
                </fieldset>
              );
            })}
            {viewOnly ? null : (
              <div class="actions">
                <button type="submit" disabled={busy}>
                  Save schema
                </button>
                <span class="hint">
                  {rules === 1 ? "1 rule" : `${rules} rules`}; each save is the schema's next
                  version.
                </span>
              </div>
            )}
            <StatusText message={status} />
            <Problems id="schema-problems" problems={problems} />
          </form>
        </>
      )}
    </section>
  );
}

function RuleEditor(props: {
  window: number;
  position: number;
  row: RuleRow;
  errors: Record<string, string>;
  onChange: (field: RuleField, patch: Partial<RuleRow>) => void;
  /** None for a viewer, who removes nothing. */
  onRemove: (() => void) | null;
}) {
  const { window, position, row, errors } = props;
  const { idOf, control } = fieldProps("schema", errors);
  const windowName = WINDOWS[window]?.name ?? `Window ${window + 1}`;
  const fine = WINDOWS[window]?.fine ?? false;
  const field = (name: RuleField) => ruleField(row.key, name);
  const input = (name: RuleField, key: keyof RuleRow) => ({
    ...control(field(name)),
    name: `w${window}_r${position}_${name}`,
    value: String(row[key]),
    onInput: (event: { currentTarget: HTMLInputElement }) =>
      props.onChange(name, { [key]: event.currentTarget.value }),
  });
  const labelled = (name: RuleField) => ({
    id: idOf(field(name)),
    label: RULE_FIELDS[name],
    error: errors[field(name)],
  });

  return (
    <fieldset class="rule-row" data-rule={position}>
      <legend>
        <span class="visually-hidden">{windowName}, </span>Rule {position + 1}
      </legend>
      <Field {...labelled("event")}>
        <input
          {...input("event", "event")}
          autocomplete="off"
          spellcheck={false}
          placeholder="service_purchase"
        />
      </Field>
      <Field {...labelled("min_count")}>
        <input
          {...input("min_count", "minCount")}
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          placeholder="1"
        />
      </Field>
      <Field {...labelled("revenue_min")}>
        <input
          {...input("revenue_min", "revenueMin")}
          type="number"
          min={0}
          step="any"
          inputMode="decimal"
        />
      </Field>
      <Field {...labelled("revenue_max")}>
        <input
          {...input("revenue_max", "revenueMax")}
          type="number"
          min={0}
          step="any"
          inputMode="decimal"
        />
      </Field>
      <Field {...labelled("parameter")}>
        <input
          {...input("parameter", "parameter")}
          autocomplete="off"
          spellcheck={false}
          placeholder="level"
        />
      </Field>
      <Field {...labelled("at_least")}>
        <input {...input("at_least", "atLeast")} type="number" step="any" inputMode="decimal" />
      </Field>
      {fine ? (
        <Field {...labelled("fine")}>
          <input
            {...input("fine", "fine")}
            type="number"
            min={1}
            max={MAX_FINE_VALUE}
            step={1}
            inputMode="numeric"
          />
        </Field>
      ) : null}
      <Field {...labelled("coarse")}>
        <select
          {...control(field("coarse"))}
          name={`w${window}_r${position}_coarse`}
          value={row.coarse}
          onChange={(event) =>
            props.onChange("coarse", { coarse: event.currentTarget.value as CoarseValue })
          }
        >
          {COARSE_VALUES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </Field>
      <div class="rule-end">
        <label class="check">
          <input
            type="checkbox"
            {...control(field("lock"))}
            name={`w${window}_r${position}_lock`}
            checked={row.lock}
            onChange={(event) => props.onChange("lock", { lock: event.currentTarget.checked })}
          />
          <span>{RULE_FIELDS.lock}</span>
        </label>
        <FieldError id={`${idOf(field("lock"))}-error`} error={errors[field("lock")]} />
        {props.onRemove ? (
          <button
            type="button"
            class="secondary"
            aria-label={`Remove rule ${position + 1} of ${windowName.toLowerCase()}`}
            onClick={props.onRemove}
          >
            Remove
          </button>
        ) : null}
      </div>
    </fieldset>
  );
}

/** The catalog's names of ad network ids and the app's own, which the owner edits. */
function NetworkNames(props: { appId: string }) {
  const { appId } = props;
  const [networks, setNetworks] = useState<AdNetworkName[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [id, setId] = useState("");
  const [source, setSource] = useState("");
  const [problems, setProblems] = useState<Problem[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const viewOnly = useViewOnly();

  useEffect(() => {
    getAdNetworks(appId).then(setNetworks, (caught: unknown) => setLoadError(errorMessage(caught)));
  }, [appId]);

  const errors = besideByField(problems);
  const { idOf, control } = fieldProps("network", errors);

  const own = (list: readonly AdNetworkName[]): Record<string, string> =>
    Object.fromEntries(list.filter((n) => n.own).map((n) => [n.ad_network_id, n.media_source]));

  /**
   * Saves the app's own names as `change` makes them; a refusal is the form's when `fromForm`.
   * The save replaces the app's whole list, so the change is made to the list as it is now,
   * read again: a name saved since the page opened (by someone else, or the CLI) stays.
   */
  const save = async (
    change: (names: Record<string, string>) => Record<string, string>,
    done: string,
    fromForm: boolean,
  ) => {
    setBusy(true);
    setProblems([]);
    setStatus(null);
    try {
      const current = own(await getAdNetworks(appId));
      setNetworks(await saveAdNetworks(appId, change(current)));
      setStatus(done);
      return true;
    } catch (caught) {
      const refused = caught instanceof ApiError && caught.status === 422;
      const found = refused
        ? networkProblemsOf(caught.detail || caught.error)
        : [{ field: null, beside: errorMessage(caught), text: errorMessage(caught) }];
      setProblems(fromForm ? found : found.map((problem) => ({ ...problem, field: null })));
      if (fromForm && refused) focusFirstRefused(form.current);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!networks) return;
    const networkId = id.trim().toLowerCase();
    const mediaSource = source.trim();
    if (networkId === "") {
      const beside = "Ad network id is required (abcd1234ef.skadnetwork)";
      setProblems([{ field: "id", beside, text: beside }]);
      focusFirstRefused(form.current);
      return;
    }
    const saved = await save(
      (names) => ({ ...names, [networkId]: mediaSource }),
      `${networkId} is reported as ${mediaSource}.`,
      true,
    );
    if (saved) {
      setId("");
      setSource("");
    }
  };

  const remove = (networkId: string) => {
    if (!networks) return;
    // An id the catalog names shows the catalog's name again.
    const without = (names: Record<string, string>) => {
      const { [networkId]: _, ...rest } = names;
      return rest;
    };
    save(without, `The app's own name of ${networkId} removed.`, false).then((saved) => {
      // The row and its button are gone: focus goes to the form's first input.
      if (saved) document.getElementById(idOf("id"))?.focus();
    });
  };

  const change = (network: AdNetworkName) => {
    setProblems([]);
    setStatus(null);
    setId(network.ad_network_id);
    setSource(network.media_source);
    document.getElementById(idOf("media_source"))?.focus();
  };

  const headingId = "networks-heading";
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Ad network names</h2>
      <p class="hint">
        A postback names its ad network by an id (<span class="mono">cstr6suwn9.skadnetwork</span>
        ); the reports show the media source named here, beside the same network's clicks. The
        catalog names the networks that publish their ids; name one it lacks, or name one of its ids
        your own way.
      </p>
      <ErrorText message={loadError} />
      {networks === null ? (
        loadError ? null : (
          <p class="loading">Loading…</p>
        )
      ) : (
        <TableScroll label="Ad network names">
          <table aria-label="Ad network names">
            <thead>
              <tr>
                <th scope="col">Ad network id</th>
                <th scope="col">Media source</th>
                <th scope="col">Named by</th>
                {viewOnly ? null : (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {networks.map((network) => (
                <tr key={network.ad_network_id} data-network-id={network.ad_network_id}>
                  <th scope="row" class="mono">
                    {network.ad_network_id}
                  </th>
                  <td>{network.media_source}</td>
                  <td>{network.own ? "This app" : "Catalog"}</td>
                  {viewOnly ? null : (
                    <td>
                      <div class="row-actions">
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Change the name of ${network.ad_network_id}`}
                          onClick={() => change(network)}
                        >
                          Change
                        </button>
                        {network.own ? (
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Remove the app's name of ${network.ad_network_id}`}
                            disabled={busy}
                            onClick={() => remove(network.ad_network_id)}
                          >
                            Remove
                          </button>
                        ) : null}
                      </div>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {viewOnly ? null : (
        <form
          ref={form}
          class="stack network-form"
          onSubmit={submit}
          noValidate
          aria-label="Name an ad network"
          aria-describedby="network-problems"
          aria-busy={busy}
        >
          <h3>Name an ad network</h3>
          <div class="form-grid">
            <Field id={idOf("id")} label="Ad network id" error={errors.id}>
              <input
                {...control("id")}
                name="ad_network_id"
                class="mono"
                autocomplete="off"
                spellcheck={false}
                placeholder="abcd1234ef.skadnetwork"
                value={id}
                onInput={(event) => {
                  setId(event.currentTarget.value);
                  setProblems((current) => current.filter((p) => p.field !== "id"));
                }}
              />
            </Field>
            <Field id={idOf("media_source")} label="Media source" error={errors.media_source}>
              <input
                {...control("media_source")}
                name="media_source"
                autocomplete="off"
                spellcheck={false}
                placeholder="examplenet_int"
                value={source}
                onInput={(event) => {
                  setSource(event.currentTarget.value);
                  setProblems((current) => current.filter((p) => p.field !== "media_source"));
                }}
              />
            </Field>
            <div class="actions">
              <button type="submit" disabled={busy || networks === null}>
                Save name
              </button>
            </div>
          </div>
          <StatusText message={status} />
          <Problems id="network-problems" problems={problems} />
        </form>
      )}
    </section>
  );
}
