import { Fragment } from "preact";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { toDataURL } from "qrcode";
import { LINK_QR_CORRECTION, LINK_QR_MODULE_PX, linkQr } from "../../../src/links/link-qr.ts";
import {
  createLink,
  errorMessage,
  getLinkClicks,
  type Link,
  type LinkPatch,
  type LinkRequest,
  listLinks,
  setLinkDisabled,
  updateLink,
} from "../api.ts";
import { CopyField } from "../components/copy-field.tsx";
import { ErrorText, Page, StatusText } from "../components/page.tsx";
import { formatCount, formatDay } from "../format.ts";
import { useViewOnly } from "../session.tsx";

const PAGE_SIZE = 200;

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

/** A link's preview as its form holds it: an empty field is no preview of the link's own. */
interface PreviewValues {
  readonly title: string;
  readonly description: string;
  readonly imageUrl: string;
}

const previewValuesOf = (link: Link): PreviewValues => ({
  title: link.preview_title ?? "",
  description: link.preview_description ?? "",
  imageUrl: link.preview_image_url ?? "",
});

const hasOwnPreview = (link: Link) =>
  link.preview_title !== null ||
  link.preview_description !== null ||
  link.preview_image_url !== null;

/**
 * The preview fields the form changed: an emptied one cleared (null), so that the app's default
 * shows again; the rest left out, so they stay.
 */
export const previewPatch = (link: Link, values: PreviewValues): LinkPatch => {
  const patch: LinkPatch = {};
  const given = (value: string) => (value.trim() === "" ? null : value.trim());
  const title = given(values.title);
  const description = given(values.description);
  const imageUrl = given(values.imageUrl);
  if (title !== link.preview_title) patch.preview_title = title;
  if (description !== link.preview_description) patch.preview_description = description;
  if (imageUrl !== link.preview_image_url) patch.preview_image_url = imageUrl;
  return patch;
};

export function LinksPage(props: { appId: string }) {
  const { appId } = props;
  const [links, setLinks] = useState<Link[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [clicks, setClicks] = useState<Map<string, number>>(new Map());
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

  const loadClicks = useCallback(
    () =>
      getLinkClicks(appId).then(
        (rows) => setClicks(new Map(rows.map((row) => [row.deeplink_id, row.clicks]))),
        (caught: unknown) => setError(errorMessage(caught)),
      ),
    [appId],
  );

  const loadFirstPage = useCallback(
    () =>
      listLinks(appId, { limit: PAGE_SIZE }).then(
        (page) => {
          setLinks(page.data);
          setCursor(page.next_cursor);
        },
        (caught: unknown) => setError(errorMessage(caught)),
      ),
    [appId],
  );

  const refresh = useCallback(() => {
    setError(null);
    return Promise.all([loadFirstPage(), loadClicks()]);
  }, [loadFirstPage, loadClicks]);

  useEffect(() => {
    refresh();
  }, [refresh]);

  const loadMore = async () => {
    if (!cursor) return;
    try {
      const page = await listLinks(appId, { limit: PAGE_SIZE, cursor });
      setLinks((current) => [...(current ?? []), ...page.data]);
      setCursor(page.next_cursor);
    } catch (caught) {
      setError(errorMessage(caught));
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
    }
  };

  const onPreviewSaved = (updated: Link | null) => {
    const id = editing?.deeplink_id;
    setEditing(null);
    if (!updated) {
      setStatus(`Nothing changed in the preview of link ${id}.`);
      return;
    }
    setLinks(
      (current) =>
        current?.map((l) => (l.deeplink_id === updated.deeplink_id ? updated : l)) ?? current,
    );
    setStatus(`Preview of link ${updated.deeplink_id} saved.`);
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
      {created ? <CreatedLink link={created} /> : null}
      {editing && !viewOnly ? (
        <LinkPreviewForm
          key={editing.deeplink_id}
          appId={appId}
          link={editing}
          onSaved={onPreviewSaved}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      <section class="card">
        <div class="section-head">
          <h2>Link list</h2>
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
                        {campaign === null ? "–" : <Cut text={campaign} />}
                      </td>
                      <td class="mono" data-label="Deep link path">
                        {link.deep_link_path === null ? "–" : <Cut text={link.deep_link_path} />}
                      </td>
                      <td class="num" data-label="Clicks" data-testid="clicks">
                        {formatCount(clicks.get(link.deeplink_id) ?? 0)}
                      </td>
                      <td data-label="Created">{formatDay(link.created_at)}</td>
                      <td data-label="Status">
                        {/* One block: on a phone, the lines of a labelled value stay together. */}
                        <div>
                          {link.disabled ? "Disabled" : "Active"}
                          {link.landing_page ? <div class="note">landing page</div> : null}
                          {hasOwnPreview(link) ? <div class="note">own preview</div> : null}
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
                                aria-label={`Edit the preview of link ${link.deeplink_id}`}
                                onClick={() => {
                                  setStatus(null);
                                  setEditing(link);
                                }}
                              >
                                Edit preview
                              </button>
                              <button
                                type="button"
                                class="secondary"
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
        {cursor ? (
          <div class="actions">
            <button type="button" class="secondary" onClick={loadMore}>
              Load more links
            </button>
          </div>
        ) : null}
      </section>
    </Page>
  );
}

function CreateLinkForm(props: { appId: string; onCreated: (link: Link) => void }) {
  const [mediaSource, setMediaSource] = useState("");
  const [campaignName, setCampaignName] = useState("");
  const [deepLinkPath, setDeepLinkPath] = useState("");
  const [paramsText, setParamsText] = useState("");
  const [landingPage, setLandingPage] = useState(false);
  const [preview, setPreview] = useState<PreviewValues>(NO_PREVIEW);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const parsed = parseParams(paramsText);
    if ("error" in parsed) {
      setError(parsed.error);
      return;
    }
    const request: LinkRequest = { media_source: mediaSource.trim() };
    if (campaignName.trim()) request.campaign_name = campaignName.trim();
    if (deepLinkPath.trim()) request.deep_link_path = deepLinkPath.trim();
    if (Object.keys(parsed.params).length > 0) request.params = parsed.params;
    if (landingPage) request.landing_page = true;
    if (preview.title.trim()) request.preview_title = preview.title.trim();
    if (preview.description.trim()) request.preview_description = preview.description.trim();
    if (preview.imageUrl.trim()) request.preview_image_url = preview.imageUrl.trim();
    setBusy(true);
    try {
      props.onCreated(await createLink(props.appId, request));
      setCampaignName("");
      setDeepLinkPath("");
      setParamsText("");
      setLandingPage(false);
      setPreview(NO_PREVIEW);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card">
      <h2>Create a link</h2>
      <form class="stack" onSubmit={submit} aria-describedby="create-link-error">
        <div class="form-grid">
          <label class="field">
            <span>Media source</span>
            <input
              name="media_source"
              required
              autocomplete="off"
              placeholder="e.g. instagram"
              value={mediaSource}
              onInput={(event) => setMediaSource(event.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Campaign name</span>
            <input
              name="campaign_name"
              autocomplete="off"
              value={campaignName}
              onInput={(event) => setCampaignName(event.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Deep link path</span>
            <input
              name="deep_link_path"
              autocomplete="off"
              spellcheck={false}
              placeholder="/levels/7"
              value={deepLinkPath}
              onInput={(event) => setDeepLinkPath(event.currentTarget.value)}
            />
          </label>
        </div>
        <label class="field">
          <span>Custom parameters (one key=value a line)</span>
          <textarea
            name="params"
            rows={3}
            spellcheck={false}
            class="mono"
            placeholder="promo=WINTER"
            value={paramsText}
            onInput={(event) => setParamsText(event.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="landing_page"
            checked={landingPage}
            onChange={(event) => setLandingPage(event.currentTarget.checked)}
          />
          <span>Landing page for every tap (store buttons, a QR code on a desktop)</span>
        </label>
        <fieldset class="stack">
          <legend>Preview in chats and feeds (empty: the app's)</legend>
          <PreviewFields values={preview} onChange={setPreview} />
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Create link
          </button>
        </div>
        <ErrorText id="create-link-error" message={error} />
      </form>
    </section>
  );
}

const NO_PREVIEW: PreviewValues = { title: "", description: "", imageUrl: "" };

/** The three preview fields, for a new link and for changing an existing one's. */
function PreviewFields(props: {
  values: PreviewValues;
  onChange: (values: PreviewValues) => void;
}) {
  const { values, onChange } = props;
  return (
    <>
      <div class="form-grid">
        <label class="field">
          <span>Preview title</span>
          <input
            name="preview_title"
            autocomplete="off"
            maxLength={100}
            value={values.title}
            onInput={(event) => onChange({ ...values, title: event.currentTarget.value })}
          />
        </label>
        <label class="field">
          <span>Preview image URL (https)</span>
          <input
            name="preview_image_url"
            type="url"
            autocomplete="off"
            spellcheck={false}
            placeholder="https://"
            value={values.imageUrl}
            onInput={(event) => onChange({ ...values, imageUrl: event.currentTarget.value })}
          />
        </label>
      </div>
      <label class="field">
        <span>Preview description</span>
        <textarea
          name="preview_description"
          rows={2}
          maxLength={300}
          value={values.description}
          onInput={(event) => onChange({ ...values, description: event.currentTarget.value })}
        />
      </label>
    </>
  );
}

/**
 * An existing link's preview, changed in place: the fields start from the link's own, and an
 * emptied one is cleared, so the app's default shows again. `onSaved` gets the link as stored,
 * or null when nothing changed.
 */
function LinkPreviewForm(props: {
  appId: string;
  link: Link;
  onSaved: (link: Link | null) => void;
  onCancel: () => void;
}) {
  const { appId, link, onSaved, onCancel } = props;
  const [values, setValues] = useState<PreviewValues>(() => previewValuesOf(link));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const headingId = `preview-${link.deeplink_id}`;
  const errorId = `${headingId}-error`;
  // On mount, before the next event: a person (or a test) typing at once keeps the focus.
  useLayoutEffect(() => heading.current?.focus(), []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const patch = previewPatch(link, values);
    if (Object.keys(patch).length === 0) {
      onSaved(null);
      return;
    }
    setBusy(true);
    try {
      onSaved(await updateLink(appId, link.deeplink_id, patch));
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card">
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        Preview of link {link.deeplink_id}
      </h2>
      <p class="mono wrap-anywhere">{link.url}</p>
      <form class="stack" onSubmit={submit} aria-labelledby={headingId} aria-describedby={errorId}>
        <p>What chats and feeds show of this link. An empty field shows the app's default.</p>
        <PreviewFields values={values} onChange={setValues} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            Save preview
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
        <ErrorText id={errorId} message={error} />
      </form>
    </section>
  );
}

/**
 * A value cut to a few lines where it is long (a campaign name of 300 characters), whole in its
 * title and to screen readers, which read the text rather than what shows of it.
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
