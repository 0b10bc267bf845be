import { Fragment } from "preact";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { toDataURL } from "qrcode";
import { LINK_LIMITS } from "../../../src/links/link-limits.ts";
import { LINK_QR_CORRECTION, LINK_QR_MODULE_PX, linkQr } from "../../../src/links/link-qr.ts";
import {
  ApiError,
  createLink,
  errorMessage,
  getLinkClicks,
  type Link,
  type LinkRequest,
  listLinks,
  setLinkDisabled,
  updateLink,
} from "../api.ts";
import { CopyField } from "../components/copy-field.tsx";
import { Field, fieldProps, focusFirstRefused, Problems } from "../components/form-fields.tsx";
import { ErrorText, Page, StatusText } from "../components/page.tsx";
import { type FormProblem, formProblemsOf, problemsByField } from "../form-problems.ts";
import { formatDay, oneLine, UNKNOWN } from "../format.ts";
import {
  COST_MODELS,
  type CostValues,
  costPatch,
  costRequest,
  costText,
  costValuesOf,
  NO_COST,
} from "../link-cost.ts";
import {
  DESTINATION_FIELDS,
  type DestinationValues,
  destinationPatch,
  destinationValuesOf,
} from "../link-destinations.ts";
import {
  clicksRead,
  clicksText,
  firstPageRead,
  type LinkList,
  listingStarted,
  NO_LINKS,
  nextPageRead,
} from "../link-list.ts";
import {
  hasOwnPreview,
  NO_PREVIEW,
  type PreviewValues,
  previewPatch,
  previewValuesOf,
} from "../link-preview.ts";
import { useViewOnly } from "../session.tsx";

const PAGE_SIZE = 200;

/** The service's bounds of a link's fields. */
const MAX = {
  field: LINK_LIMITS.maxFieldLength,
  path: LINK_LIMITS.maxPathLength,
  url: LINK_LIMITS.maxUrlLength,
  previewTitle: LINK_LIMITS.maxPreviewTitleLength,
  previewDescription: LINK_LIMITS.maxPreviewDescriptionLength,
} as const;

/** The forwarding checkbox of both forms. */
const FORWARD_PARAMS_LABEL =
  "The web destination gets the tapped link's parameters it lacks (utm_*, gclid)";

/** The links' forms' inputs by the API's names, in the words their problems are said in. */
const LINK_LABELS: Readonly<Record<string, string>> = {
  media_source: "Media source",
  campaign_name: "Campaign name",
  campaign_id: "Campaign id",
  adset_name: "Ad set name",
  adset_id: "Ad set id",
  ad_name: "Ad name",
  ad_id: "Ad id",
  deep_link_path: "Deep link path",
  params: "Custom parameters",
  android_url: "Android URL",
  ios_url: "iOS URL",
  web_url: "Web URL",
  landing_page: "Landing page",
  forward_params: "Web parameters",
  preview_title: "Preview title",
  preview_description: "Preview description",
  preview_image_url: "Preview image URL",
  cost_model: "Cost model",
  cost_value: "Cost",
  cost_currency: "Cost currency",
};

/** A field the service names in a message (`is required with cost_model`), in the form's words. */
const inWords = (text: string) =>
  text.replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (name) =>
    Object.hasOwn(LINK_LABELS, name) ? (LINK_LABELS[name] ?? name).toLowerCase() : name,
  );

/** A refusal as the form's problems: a 422 beside its inputs, anything else under the form. */
const linkProblemsOf = (caught: unknown): FormProblem[] =>
  caught instanceof ApiError && caught.status === 422
    ? formProblemsOf(caught.detail || caught.error, LINK_LABELS).map((problem) => ({
        ...problem,
        text: inWords(problem.text),
      }))
    : [{ field: null, text: errorMessage(caught) }];

/** `key=value` lines as the link's custom parameters; the first bad line as an error. */
export const parseParams = (
  text: string,
): { params: Record<string, string> } | { error: string } => {
  const params: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const equals = line.indexOf("=");
    const key = equals < 0 ? "" : line.slice(0, equals).trim();
    if (key === "") return { error: `Custom parameters, line ${index + 1}: write key=value.` };
    params[key] = line.slice(equals + 1).trim();
  }
  return { params };
};

export function LinksPage(props: { appId: string }) {
  const { appId } = props;
  /** The links, the cursor after them and their clicks, of the listing being read. */
  const [list, setList] = useState<LinkList>(NO_LINKS);
  const { links, next, clicks } = list;
  /** Changes the links shown, whatever listing they are of. */
  const setLinks = (change: (current: Link[] | null) => Link[] | null) =>
    setList((current) => ({ ...current, links: change(current.links) }));
  /** The latest listing begun: a Refresh begins the next. */
  const reading = useRef(0);
  const [created, setCreated] = useState<Link | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busyRow, setBusyRow] = useState<string | null>(null);
  const [editing, setEditing] = useState<Link | null>(null);
  /** The links whose QR codes are shown, each under its row. */
  const [showingQr, setShowingQr] = useState<ReadonlySet<string>>(new Set());
  const viewOnly = useViewOnly();

  const toggleQr = (deeplinkId: string) =>
    setShowingQr((shown) => {
      const next = new Set(shown);
      if (!next.delete(deeplinkId)) next.add(deeplinkId);
      return next;
    });

  // The first page and the clicks of a new listing: what an earlier listing's reads bring
  // after it begins is dropped (./link-list.ts).
  const refresh = useCallback(() => {
    const listing = ++reading.current;
    setList((current) => listingStarted(current, listing));
    setError(null);
    const failed = (caught: unknown) => {
      if (listing === reading.current) setError(errorMessage(caught));
    };
    return Promise.all([
      listLinks(appId, { limit: PAGE_SIZE }).then(
        (page) => setList((current) => firstPageRead(current, listing, page)),
        failed,
      ),
      getLinkClicks(appId).then(
        (rows) => setList((current) => clicksRead(current, listing, rows)),
        (caught: unknown) => {
          // Not known: "—", not a 0 that was never counted.
          setList((current) => clicksRead(current, listing, null));
          failed(caught);
        },
      ),
    ]);
  }, [appId]);

  useEffect(() => {
    refresh();
  }, [refresh]);

  // A second press while a page is on its way would ask for the same page again (a ref: two
  // presses before the page renders again both see the state as it was).
  const [loadingMore, setLoadingMore] = useState(false);
  const moreOnItsWay = useRef(false);
  const moreButton = useRef<HTMLButtonElement>(null);
  const loadMore = async () => {
    if (!next || moreOnItsWay.current) return;
    moreOnItsWay.current = true;
    setLoadingMore(true);
    const asked = next;
    try {
      const page = await listLinks(appId, { limit: PAGE_SIZE, cursor: asked.cursor });
      // A Refresh since (or under way): its first page is not the one this page follows.
      if (asked.listing !== reading.current) return;
      setList((current) => nextPageRead(current, asked, page));
      // The last page takes the button away, and the focus it had with it: the list's heading
      // takes it, rather than the page's start.
      if (page.next_cursor === null && document.activeElement === moreButton.current) {
        requestAnimationFrame(() => document.getElementById("link-list-heading")?.focus());
      }
    } catch (caught) {
      if (asked.listing === reading.current) setError(errorMessage(caught));
    } finally {
      moreOnItsWay.current = false;
      setLoadingMore(false);
    }
  };

  const toggle = async (link: Link) => {
    setBusyRow(link.deeplink_id);
    setError(null);
    setStatus(null);
    try {
      const updated = await setLinkDisabled(appId, link.deeplink_id, !link.disabled);
      setLinks(
        (current) =>
          current?.map((l) => (l.deeplink_id === updated.deeplink_id ? updated : l)) ?? current,
      );
      setStatus(`Link ${updated.deeplink_id} ${updated.disabled ? "disabled" : "enabled"}.`);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusyRow(null);
      // Disabled while asking, the button let the focus go: it takes it back, under its new name.
      requestAnimationFrame(() =>
        document
          .querySelector<HTMLButtonElement>(`button[data-toggle="${link.deeplink_id}"]`)
          ?.focus(),
      );
    }
  };

  /**
   * Back to the link's "Edit" button once its form closes, which the form replaced as
   * the focus; to the list's heading when the link is no longer listed.
   */
  const focusEditButton = (deeplinkId: string | undefined) =>
    requestAnimationFrame(() => {
      const button =
        deeplinkId === undefined
          ? null
          : document.querySelector<HTMLElement>(
              `tr[data-deeplink-id="${CSS.escape(deeplinkId)}"] button[data-edit-link]`,
            );
      (button ?? document.getElementById("link-list-heading"))?.focus();
    });

  const closeEditing = () => {
    focusEditButton(editing?.deeplink_id);
    setEditing(null);
  };

  const onEdited = (updated: Link | null) => {
    const id = editing?.deeplink_id;
    closeEditing();
    if (!updated) {
      setStatus(`Nothing changed in link ${id}.`);
      return;
    }
    setLinks(
      (current) =>
        current?.map((l) => (l.deeplink_id === updated.deeplink_id ? updated : l)) ?? current,
    );
    setStatus(`Link ${updated.deeplink_id} saved.`);
  };

  const onCreated = (link: Link) => {
    setCreated(link);
    setLinks((current) => [
      link,
      ...(current ?? []).filter((l) => l.deeplink_id !== link.deeplink_id),
    ]);
  };

  return (
    <Page title="Links" subtitle={appId}>
      {viewOnly ? null : <CreateLinkForm appId={appId} onCreated={onCreated} />}
      {/* One card per link made: nothing of the last link's copy field stays with the next. */}
      {created ? <CreatedLink key={created.deeplink_id} link={created} /> : null}
      {editing && !viewOnly ? (
        <LinkEditForm
          key={editing.deeplink_id}
          appId={appId}
          link={editing}
          onSaved={onEdited}
          onCancel={closeEditing}
        />
      ) : null}
      <section class="card">
        <div class="section-head">
          <h2 id="link-list-heading" tabIndex={-1}>
            Link list
          </h2>
          <button type="button" class="secondary" onClick={refresh}>
            Refresh
          </button>
        </div>
        <ErrorText message={error} />
        <StatusText message={status} />
        {links === null ? (
          error ? null : (
            <p class="loading">Loading…</p>
          )
        ) : links.length === 0 ? (
          <p>No links yet.</p>
        ) : (
          // Laid out to the card's width: long values wrap or are cut (whole in their title),
          // and on a narrow screen each link is a block of labelled lines.
          <table aria-label="Links" class="links-table">
            <colgroup>
              <col class="col-link" />
              <col class="col-source" />
              <col class="col-campaign" />
              <col class="col-path" />
              <col class="col-clicks" />
              <col class="col-created" />
              <col class="col-status" />
              <col class="col-actions" />
            </colgroup>
            <thead>
              <tr>
                <th scope="col">Link</th>
                <th scope="col">Media source</th>
                <th scope="col">Campaign</th>
                <th scope="col">Deep link path</th>
                <th scope="col" class="num">
                  Clicks
                </th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {links.map((link) => {
                const campaign = link.campaign_name ?? link.campaign_id;
                const cost = costText(link);
                const qrShown = showingQr.has(link.deeplink_id);
                const qrId = `qr-${link.deeplink_id}`;
                return (
                  <Fragment key={link.deeplink_id}>
                    <tr
                      data-deeplink-id={link.deeplink_id}
                      class={link.disabled ? "muted" : undefined}
                    >
                      <td class="mono" data-label="Link">
                        <Cut text={link.url} />
                      </td>
                      <td data-label="Media source">
                        <Cut text={link.media_source} />
                      </td>
                      <td data-label="Campaign">
                        {campaign === null ? UNKNOWN : <Cut text={campaign} />}
                      </td>
                      <td class="mono" data-label="Deep link path">
                        {link.deep_link_path === null ? (
                          UNKNOWN
                        ) : (
                          <Cut text={link.deep_link_path} />
                        )}
                      </td>
                      <td class="num" data-label="Clicks" data-testid="clicks">
                        {clicksText(clicks, link.deeplink_id)}
                      </td>
                      <td data-label="Created">{formatDay(link.created_at)}</td>
                      <td data-label="Status">
                        {/* One block: on a phone, the lines of a labelled value stay together. */}
                        <div>
                          {link.disabled ? "Disabled" : "Active"}
                          {link.landing_page ? <div class="note">landing page</div> : null}
                          {link.forward_params ? null : (
                            <div class="note">no parameters to the web</div>
                          )}
                          {hasOwnPreview(link) ? <div class="note">own preview</div> : null}
                          {cost ? <div class="note">{cost}</div> : null}
                        </div>
                      </td>
                      <td class="actions-cell">
                        <div class="row-actions stacked">
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`QR code of link ${link.deeplink_id}`}
                            aria-expanded={qrShown}
                            aria-controls={qrId}
                            onClick={() => toggleQr(link.deeplink_id)}
                          >
                            QR
                          </button>
                          {viewOnly ? null : (
                            <>
                              <button
                                type="button"
                                class="secondary"
                                data-edit-link
                                aria-label={`Edit link ${link.deeplink_id}`}
                                onClick={() => {
                                  setStatus(null);
                                  setEditing(link);
                                }}
                              >
                                Edit
                              </button>
                              <button
                                type="button"
                                class="secondary"
                                aria-label={`${link.disabled ? "Enable" : "Disable"} link ${link.deeplink_id}`}
                                data-toggle={link.deeplink_id}
                                disabled={busyRow === link.deeplink_id}
                                onClick={() => toggle(link)}
                              >
                                {link.disabled ? "Enable" : "Disable"}
                              </button>
                            </>
                          )}
                        </div>
                      </td>
                    </tr>
                    <tr id={qrId} class="qr-row" data-qr-for={link.deeplink_id} hidden={!qrShown}>
                      <td colSpan={8}>{qrShown ? <LinkQr url={link.url} /> : null}</td>
                    </tr>
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        )}
        {next ? (
          <div class="actions">
            <button
              ref={moreButton}
              type="button"
              class="secondary"
              onClick={loadMore}
              aria-disabled={loadingMore}
            >
              Load more links
            </button>
          </div>
        ) : null}
      </section>
    </Page>
  );
}

/** A text input of a new link: its bound, and what it holds. */
interface TextInput {
  readonly maxLength: number;
  readonly url?: true;
  readonly mono?: true;
  readonly placeholder?: string;
}

/** The text inputs of a new link, by the API's names of their fields, in the form's order. */
const TEXT_INPUTS = {
  media_source: { maxLength: MAX.field, placeholder: "e.g. instagram" },
  campaign_name: { maxLength: MAX.field },
  deep_link_path: { maxLength: MAX.path, mono: true, placeholder: "/levels/7" },
  campaign_id: { maxLength: MAX.field },
  adset_name: { maxLength: MAX.field },
  adset_id: { maxLength: MAX.field },
  ad_name: { maxLength: MAX.field },
  ad_id: { maxLength: MAX.field },
  android_url: { maxLength: MAX.url, url: true, placeholder: "https://" },
  ios_url: { maxLength: MAX.url, url: true, placeholder: "https://" },
  web_url: { maxLength: MAX.url, url: true, placeholder: "https://" },
} as const satisfies Partial<Record<keyof LinkRequest, TextInput>>;
type TextField = keyof typeof TEXT_INPUTS;
type TextValues = Readonly<Record<TextField, string>>;

const TEXT_FIELDS = Object.keys(TEXT_INPUTS) as TextField[];
const NO_TEXT = Object.fromEntries(TEXT_FIELDS.map((name) => [name, ""])) as TextValues;

function CreateLinkForm(props: { appId: string; onCreated: (link: Link) => void }) {
  const [text, setText] = useState<TextValues>(NO_TEXT);
  const [paramsText, setParamsText] = useState("");
  const [landingPage, setLandingPage] = useState(false);
  const [forwardParams, setForwardParams] = useState(true);
  const [preview, setPreview] = useState<PreviewValues>(NO_PREVIEW);
  const [cost, setCost] = useState<CostValues>(NO_COST);
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<FormProblem[]>([]);
  const form = useRef<HTMLFormElement>(null);
  const errors = problemsByField(problems);
  const fields = fieldProps("create-link", errors);
  const { idOf, control } = fields;
  /** A change to an input takes its problem away. */
  const changed = (field: string) =>
    setProblems((current) => current.filter((problem) => problem.field !== field));

  /** A text input of the new link, by the API's name of its field. */
  const input = (name: TextField, required = false) => {
    const { maxLength, url, mono, placeholder }: TextInput = TEXT_INPUTS[name];
    return (
      <Field id={idOf(name)} label={LINK_LABELS[name] ?? name} error={errors[name]}>
        <input
          name={name}
          type={url ? "url" : "text"}
          required={required}
          autocomplete="off"
          spellcheck={url || mono ? false : undefined}
          placeholder={placeholder}
          maxLength={maxLength}
          {...control(name)}
          value={text[name]}
          onInput={(event) => {
            const value = event.currentTarget.value;
            setText((current) => ({ ...current, [name]: value }));
            changed(name);
          }}
        />
      </Field>
    );
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const parsed = parseParams(paramsText);
    if ("error" in parsed) {
      setProblems([{ field: "params", text: parsed.error }]);
      focusFirstRefused(form.current);
      return;
    }
    setProblems([]);
    const request: LinkRequest = { media_source: text.media_source.trim(), ...costRequest(cost) };
    for (const name of TEXT_FIELDS) {
      const value = text[name].trim();
      if (name !== "media_source" && value !== "") request[name] = value;
    }
    if (Object.keys(parsed.params).length > 0) request.params = parsed.params;
    if (landingPage) request.landing_page = true;
    if (!forwardParams) request.forward_params = false;
    if (preview.title.trim()) request.preview_title = preview.title.trim();
    if (preview.description.trim()) request.preview_description = preview.description.trim();
    if (preview.imageUrl.trim()) request.preview_image_url = preview.imageUrl.trim();
    setBusy(true);
    try {
      props.onCreated(await createLink(props.appId, request));
      // The media source stays for the next link of the same source; the rest starts again.
      setText((current) => ({ ...NO_TEXT, media_source: current.media_source }));
      setParamsText("");
      setLandingPage(false);
      setForwardParams(true);
      setPreview(NO_PREVIEW);
      setCost(NO_COST);
    } catch (caught) {
      setProblems(linkProblemsOf(caught));
      focusFirstRefused(form.current);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card">
      <h2>Create a link</h2>
      <form
        ref={form}
        class="stack"
        onSubmit={submit}
        aria-describedby="create-link-error"
        aria-busy={busy}
      >
        <div class="form-grid">
          {input("media_source", true)}
          {input("campaign_name")}
          {input("deep_link_path")}
        </div>
        <Field
          id={idOf("params")}
          label="Custom parameters (one key=value a line)"
          error={errors.params}
        >
          <textarea
            name="params"
            rows={3}
            spellcheck={false}
            class="mono"
            placeholder="promo=WINTER"
            {...control("params")}
            value={paramsText}
            onInput={(event) => {
              setParamsText(event.currentTarget.value);
              changed("params");
            }}
          />
        </Field>
        <label class="check">
          <input
            type="checkbox"
            name="landing_page"
            {...control("landing_page")}
            checked={landingPage}
            onChange={(event) => {
              setLandingPage(event.currentTarget.checked);
              changed("landing_page");
            }}
          />
          <span>
            Landing page for every tap (store buttons, an Open button for the installed app, a QR
            code on a desktop)
          </span>
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="forward_params"
            {...control("forward_params")}
            checked={forwardParams}
            onChange={(event) => {
              setForwardParams(event.currentTarget.checked);
              changed("forward_params");
            }}
          />
          <span>{FORWARD_PARAMS_LABEL}</span>
        </label>
        <fieldset class="stack">
          <legend>Campaign id, ad set and ad (as the network names them)</legend>
          <div class="form-grid">
            {input("campaign_id")}
            {input("adset_name")}
            {input("adset_id")}
            {input("ad_name")}
            {input("ad_id")}
          </div>
        </fieldset>
        <fieldset class="stack">
          <legend>Destinations (empty: the app's store page and web URL)</legend>
          <div class="form-grid">
            {input("android_url")}
            {input("ios_url")}
            {input("web_url")}
          </div>
        </fieldset>
        <fieldset class="stack">
          <legend>Cost (empty: none)</legend>
          <CostFields
            values={cost}
            fields={fields}
            errors={errors}
            onChange={(values, field) => {
              setCost(values);
              changed(field);
            }}
          />
        </fieldset>
        <fieldset class="stack">
          <legend>Preview in chats and feeds (empty: the app's)</legend>
          <PreviewFields
            values={preview}
            fields={fields}
            errors={errors}
            onChange={(values, field) => {
              setPreview(values);
              changed(field);
            }}
          />
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Create link
          </button>
        </div>
        <Problems id="create-link-error" problems={problems} />
      </form>
    </section>
  );
}

/**
 * The cost's three fields, for a new link and for changing an existing one's: how each click
 * is paid for, its price and the price's currency, all three or none.
 */
function CostFields(props: {
  values: CostValues;
  fields: ReturnType<typeof fieldProps>;
  errors: Record<string, string>;
  /** The new values, and the API's name of the field changed. */
  onChange: (values: CostValues, field: string) => void;
}) {
  const { values, onChange, errors } = props;
  const { idOf, control } = props.fields;
  return (
    <div class="form-grid">
      <Field id={idOf("cost_model")} label="Cost model" error={errors.cost_model}>
        <select
          name="cost_model"
          {...control("cost_model")}
          value={values.model}
          onChange={(event) =>
            onChange(
              { ...values, model: event.currentTarget.value as CostValues["model"] },
              "cost_model",
            )
          }
        >
          <option value="">None</option>
          {Object.entries(COST_MODELS).map(([model, words]) => (
            <option key={model} value={model}>
              {words}
            </option>
          ))}
        </select>
      </Field>
      <Field id={idOf("cost_value")} label="Cost" error={errors.cost_value}>
        <input
          name="cost_value"
          type="number"
          min={0}
          step="any"
          inputMode="decimal"
          autocomplete="off"
          {...control("cost_value")}
          value={values.value}
          onInput={(event) =>
            onChange({ ...values, value: event.currentTarget.value }, "cost_value")
          }
        />
      </Field>
      <Field id={idOf("cost_currency")} label="Cost currency" error={errors.cost_currency}>
        <input
          name="cost_currency"
          autocomplete="off"
          spellcheck={false}
          placeholder="USD"
          maxLength={3}
          {...control("cost_currency")}
          value={values.currency}
          onInput={(event) =>
            onChange({ ...values, currency: event.currentTarget.value }, "cost_currency")
          }
        />
      </Field>
    </div>
  );
}

/** The three preview fields, for a new link and for changing an existing one's. */
function PreviewFields(props: {
  values: PreviewValues;
  /** The form's ids and marks, so that a refused field is named beside it. */
  fields: ReturnType<typeof fieldProps>;
  errors: Record<string, string>;
  /** The new values, and the API's name of the field changed. */
  onChange: (values: PreviewValues, field: string) => void;
}) {
  const { values, onChange, errors } = props;
  const { idOf, control } = props.fields;
  return (
    <>
      <div class="form-grid">
        <Field id={idOf("preview_title")} label="Preview title" error={errors.preview_title}>
          <input
            name="preview_title"
            autocomplete="off"
            maxLength={MAX.previewTitle}
            {...control("preview_title")}
            value={values.title}
            onInput={(event) =>
              onChange({ ...values, title: event.currentTarget.value }, "preview_title")
            }
          />
        </Field>
        <Field
          id={idOf("preview_image_url")}
          label="Preview image URL (https)"
          error={errors.preview_image_url}
        >
          <input
            name="preview_image_url"
            type="url"
            autocomplete="off"
            spellcheck={false}
            placeholder="https://"
            maxLength={MAX.url}
            {...control("preview_image_url")}
            value={values.imageUrl}
            onInput={(event) =>
              onChange({ ...values, imageUrl: event.currentTarget.value }, "preview_image_url")
            }
          />
        </Field>
      </div>
      <Field
        id={idOf("preview_description")}
        label="Preview description"
        error={errors.preview_description}
      >
        <textarea
          name="preview_description"
          rows={2}
          maxLength={MAX.previewDescription}
          {...control("preview_description")}
          value={values.description}
          onInput={(event) =>
            onChange(
              { ...values, description: oneLine(event.currentTarget.value) },
              "preview_description",
            )
          }
        />
      </Field>
    </>
  );
}

/**
 * An existing link's destinations, landing page, forwarding, cost and preview, changed in place:
 * the fields start from the link's own; an emptied destination or preview field is cleared, so
 * the app's default shows again, and an emptied cost clears it. Its URL, already shared, does
 * not change (its deep link path and parameters are in it). `onSaved` gets the link as stored,
 * or null when nothing changed.
 */
function LinkEditForm(props: {
  appId: string;
  link: Link;
  onSaved: (link: Link | null) => void;
  onCancel: () => void;
}) {
  const { appId, link, onSaved, onCancel } = props;
  const [values, setValues] = useState<PreviewValues>(() => previewValuesOf(link));
  const [destinations, setDestinations] = useState<DestinationValues>(() =>
    destinationValuesOf(link),
  );
  const [cost, setCost] = useState<CostValues>(() => costValuesOf(link));
  const [landingPage, setLandingPage] = useState(link.landing_page);
  const [forwardParams, setForwardParams] = useState(link.forward_params);
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<FormProblem[]>([]);
  const heading = useRef<HTMLHeadingElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const headingId = `edit-${link.deeplink_id}`;
  const errorId = `${headingId}-error`;
  const errors = problemsByField(problems);
  const fields = fieldProps(headingId, errors);
  // On mount, before the next event: a person (or a test) typing at once keeps the focus.
  useLayoutEffect(() => heading.current?.focus(), []);
  const changed = (field: string) =>
    setProblems((current) => current.filter((problem) => problem.field !== field));

  const submit = async (event: Event) => {
    event.preventDefault();
    setProblems([]);
    const patch = {
      ...destinationPatch(link, destinations),
      ...previewPatch(link, values),
      ...costPatch(link, cost),
    };
    if (landingPage !== link.landing_page) patch.landing_page = landingPage;
    if (forwardParams !== link.forward_params) patch.forward_params = forwardParams;
    if (Object.keys(patch).length === 0) {
      onSaved(null);
      return;
    }
    setBusy(true);
    try {
      onSaved(await updateLink(appId, link.deeplink_id, patch));
    } catch (caught) {
      setProblems(linkProblemsOf(caught));
      focusFirstRefused(form.current);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card">
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        Link {link.deeplink_id}
      </h2>
      <p class="mono wrap-anywhere">{link.url}</p>
      <form
        ref={form}
        class="stack"
        onSubmit={submit}
        aria-labelledby={headingId}
        aria-describedby={errorId}
        aria-busy={busy}
      >
        <label class="check">
          <input
            type="checkbox"
            name="landing_page"
            checked={landingPage}
            onChange={(event) => setLandingPage(event.currentTarget.checked)}
          />
          <span>
            Landing page for every tap (store buttons, an Open button for the installed app, a QR
            code on a desktop)
          </span>
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="forward_params"
            checked={forwardParams}
            onChange={(event) => setForwardParams(event.currentTarget.checked)}
          />
          <span>{FORWARD_PARAMS_LABEL}</span>
        </label>
        <fieldset class="stack">
          <legend>Destinations (empty: the app's store page and web URL)</legend>
          <div class="form-grid">
            {DESTINATION_FIELDS.map((name) => (
              <Field
                key={name}
                id={fields.idOf(name)}
                label={LINK_LABELS[name] ?? name}
                error={errors[name]}
              >
                <input
                  name={name}
                  type="url"
                  autocomplete="off"
                  spellcheck={false}
                  placeholder="https://"
                  maxLength={MAX.url}
                  {...fields.control(name)}
                  value={destinations[name]}
                  onInput={(event) => {
                    const value = event.currentTarget.value;
                    setDestinations((current) => ({ ...current, [name]: value }));
                    changed(name);
                  }}
                />
              </Field>
            ))}
          </div>
        </fieldset>
        <fieldset class="stack">
          <legend>Cost (empty: none; a change counts from the next click)</legend>
          <CostFields
            values={cost}
            fields={fields}
            errors={errors}
            onChange={(next, field) => {
              setCost(next);
              changed(field);
            }}
          />
        </fieldset>
        <fieldset class="stack">
          <legend>Preview in chats and feeds (empty: the app's)</legend>
          <PreviewFields
            values={values}
            fields={fields}
            errors={errors}
            onChange={(next, field) => {
              setValues(next);
              changed(field);
            }}
          />
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Save link
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
        <Problems id={errorId} problems={problems} />
      </form>
    </section>
  );
}

/**
 * A value cut to a few lines where it is long (a campaign name of 200 characters), whole in its
 * title, while its row's controls have the keyboard's focus (the stylesheet), and to screen
 * readers, which read the text rather than what shows of it.
 */
function Cut(props: { text: string }) {
  return (
    <span class="cut" title={props.text}>
      {props.text}
    </span>
  );
}

const QR_MARGIN = 2;
const QR_MIN_PX = 192;

interface DrawnQr {
  readonly image: string;
  /** What a scan opens: the link, or the bare link for one too long for any QR code. */
  readonly opens: string;
  readonly px: number;
}

/** A QR code of a link's URL, drawn when asked for, larger the denser it is. */
const useQrCode = (url: string): DrawnQr | null => {
  const [qr, setQr] = useState<DrawnQr | null>(null);
  useEffect(() => {
    let live = true;
    const { text, modules } = linkQr(url);
    const px = Math.max(QR_MIN_PX, (modules + 2 * QR_MARGIN) * LINK_QR_MODULE_PX);
    toDataURL(text, {
      margin: QR_MARGIN,
      width: px,
      errorCorrectionLevel: LINK_QR_CORRECTION,
    }).then(
      (image) => live && setQr({ image, opens: text, px }),
      () => live && setQr(null),
    );
    return () => {
      live = false;
    };
  }, [url]);
  return qr;
};

/** A listed link's QR code, under its row: to print, or to scan from the screen. */
function LinkQr(props: { url: string }) {
  const qr = useQrCode(props.url);
  return (
    <div class="link-qr">
      {qr ? (
        <img
          class="qr"
          src={qr.image}
          alt={`QR code of ${qr.opens}`}
          width={qr.px}
          height={qr.px}
        />
      ) : (
        <p class="loading">Drawing the QR code…</p>
      )}
      <p class="hint">
        Scanned, it opens <span class="mono">{qr?.opens ?? props.url}</span>: a scan counts as a
        click.
        {qr && qr.opens !== props.url
          ? " The link is too long for a QR code: it holds the link without its query, the same link's click, but an installed app opened by it gets no deep link path."
          : null}
      </p>
    </div>
  );
}

function CreatedLink(props: { link: Link }) {
  const { url } = props.link;
  const qr = useQrCode(url);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [url]);
  return (
    <section class="card created-link">
      <h2 ref={heading} tabIndex={-1}>
        New link
      </h2>
      <div class="created-link-body">
        <div class="grow">
          <CopyField value={url} label="Link URL" />
          <p>
            <a href={url} target="_blank" rel="noopener noreferrer">
              Open the link
            </a>{" "}
            (a tap from this browser counts as a click).
          </p>
        </div>
        {qr ? <img class="qr" src={qr.image} alt={qr.opens} width={qr.px} height={qr.px} /> : null}
      </div>
    </section>
  );
}
