import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import {
  ApiError,
  type CatalogPartner,
  type DeliveryAttempt,
  type DeliveryCounts,
  deletePostbackConfig,
  errorMessage,
  getDeliveryLog,
  getPartnerCatalog,
  getPostbacks,
  type PartnerCatalog,
  type PartnerConfig,
  type Platform,
  type Postbacks,
  type PostbackTarget,
  type PostbackTestResult,
  savePostbackSettings,
  testPostback,
  type Verdict,
  type Webhook,
} from "../api.ts";
import { CopyField } from "../components/copy-field.tsx";
import { ErrorText, Page, StatusText, TableScroll } from "../components/page.tsx";
import { formatCount, formatTime, UNKNOWN } from "../format.ts";
import { useSession, useViewOnly } from "../session.tsx";
import { eventWord, verdictWord } from "../words.ts";
import { PartnerForm, WebhookForm } from "./partner-forms.tsx";

const LOG_PAGE = 50;

/** A configuration's attempts of the last 30 days, by verdict. */
interface Totals {
  delivered: number;
  retry: number;
  failed: number;
  skipped: number;
}

const NO_ATTEMPTS: Totals = { delivered: 0, retry: 0, failed: 0, skipped: 0 };

/** The last 30 days' counts summed per configuration (a partner's and a webhook's ids may meet). */
export const totalsByConfig = (counts: readonly DeliveryCounts[]): Map<string, Totals> => {
  const totals = new Map<string, Totals>();
  for (const row of counts) {
    const key = `${row.partner === "webhook" ? "webhook" : "partner"}:${row.config_id}`;
    const sum = totals.get(key) ?? { ...NO_ATTEMPTS };
    sum.delivered += row.delivered;
    sum.retry += row.retry;
    sum.failed += row.failed;
    sum.skipped += row.skipped;
    totals.set(key, sum);
  }
  return totals;
};

type Editing =
  | { readonly target: "partners"; readonly config: PartnerConfig | null }
  | { readonly target: "webhooks"; readonly config: Webhook | null };

interface Testing {
  readonly target: PostbackTarget;
  readonly id: string;
}

const targetWord = (target: PostbackTarget) => (target === "partners" ? "partner" : "webhook");

const headingOf = (target: PostbackTarget) =>
  target === "partners" ? "partners-heading" : "webhooks-heading";

/** The `data-opens` of the button that opens a form: Add, or a row's Edit. */
const editingOpener = (editing: Editing) =>
  `${editing.config ? "edit" : "add"}:${editing.target}${editing.config ? `:${editing.config.id}` : ""}`;

export function PartnersPage(props: { appId: string }) {
  const { appId } = props;
  const { apps } = useSession();
  const viewOnly = useViewOnly();
  const platform: Platform = apps?.find((app) => app.app_id === appId)?.platform ?? "android";
  const [catalog, setCatalog] = useState<PartnerCatalog | null>(null);
  const [postbacks, setPostbacks] = useState<Postbacks | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [testing, setTesting] = useState<Testing | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [newSecret, setNewSecret] = useState<{ id: string; secret: string } | null>(null);
  /** Bumped to read the log's first page again. */
  const [logVersion, setLogVersion] = useState(0);

  const reload = useCallback(
    () =>
      getPostbacks(appId).then(setPostbacks, (caught: unknown) =>
        setLoadError(errorMessage(caught)),
      ),
    [appId],
  );

  useEffect(() => {
    getPartnerCatalog(appId).then(setCatalog, (caught: unknown) =>
      setLoadError(errorMessage(caught)),
    );
    reload();
  }, [appId, reload]);

  const totals = postbacks ? totalsByConfig(postbacks.counts) : new Map<string, Totals>();
  const totalsOf = (target: PostbackTarget, id: string) =>
    totals.get(`${targetWord(target)}:${id}`) ?? NO_ATTEMPTS;
  const partnerOf = (id: string): CatalogPartner | undefined =>
    catalog?.data.find((partner) => partner.id === id);

  const startEditing = (next: Editing) => {
    setStatus(null);
    setError(null);
    setTesting(null);
    setNewSecret(null);
    setEditing(next);
  };

  const startTesting = (next: Testing) => {
    setStatus(null);
    setError(null);
    setEditing(null);
    setTesting(next);
  };

  /** Where focus goes once a form it was in closes, when nothing better holds it: its list's heading. */
  const focusHeading = (id: string) =>
    requestAnimationFrame(() => document.getElementById(id)?.focus());

  /**
   * Back to the button that opened a form or a test panel (`data-opens`), once it closes, which
   * had the focus; to its list's heading when that button went with its row.
   */
  const focusOpener = (opens: string, target: PostbackTarget) =>
    requestAnimationFrame(() => {
      const button = document.querySelector<HTMLElement>(`[data-opens="${CSS.escape(opens)}"]`);
      (button ?? document.getElementById(headingOf(target)))?.focus();
    });

  const closeEditing = () => {
    if (editing) focusOpener(editingOpener(editing), editing.target);
    setEditing(null);
  };

  const closeTesting = () => {
    if (testing) focusOpener(`test:${testing.target}:${testing.id}`, testing.target);
    setTesting(null);
  };

  const onPartnerSaved = (saved: PartnerConfig) => {
    closeEditing();
    setStatus(`Partner configuration ${saved.id} saved.`);
    reload();
  };

  const onWebhookSaved = (saved: Webhook) => {
    // A new secret's card takes focus itself: the secret is to be copied before anything else.
    if (saved.secret) {
      setEditing(null);
      setNewSecret({ id: saved.id, secret: saved.secret });
    } else closeEditing();
    setStatus(`Webhook ${saved.id} saved.`);
    reload();
  };

  // The confirm step replaces the Delete button that had focus: focus follows it.
  useEffect(() => {
    if (confirming) document.querySelector<HTMLButtonElement>("button[data-confirm]")?.focus();
  }, [confirming]);

  // A second press of Confirm delete while the first is on its way would delete it again, and
  // be told it is not found.
  const deleting = useRef<string | null>(null);
  const remove = async (target: PostbackTarget, id: string) => {
    const key = `${target}:${id}`;
    if (deleting.current === key) return;
    deleting.current = key;
    setError(null);
    setStatus(null);
    try {
      await deletePostbackConfig(appId, target, id);
      setConfirming(null);
      // Its row goes, and the focus with it: to the list's heading.
      focusHeading(headingOf(target));
      if (testing?.id === id && testing.target === target) setTesting(null);
      setStatus(`${target === "partners" ? "Partner configuration" : "Webhook"} ${id} deleted.`);
      await reload();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      deleting.current = null;
    }
  };

  const deleteButtons = (target: PostbackTarget, id: string) =>
    confirming === `${target}:${id}` ? (
      <>
        <button type="button" class="danger" data-confirm onClick={() => remove(target, id)}>
          Confirm delete
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setConfirming(null);
            // Back to the Delete button that the confirm step replaced.
            requestAnimationFrame(() =>
              document
                .querySelector<HTMLButtonElement>(
                  `button[data-delete="${CSS.escape(`${target}:${id}`)}"]`,
                )
                ?.focus(),
            );
          }}
        >
          Cancel
        </button>
      </>
    ) : (
      <button
        type="button"
        class="secondary"
        data-delete={`${target}:${id}`}
        aria-label={`Delete ${targetWord(target)} ${id}`}
        onClick={() => setConfirming(`${target}:${id}`)}
      >
        Delete
      </button>
    );

  const countCells = (target: PostbackTarget, id: string) => {
    const sum = totalsOf(target, id);
    return (
      <>
        <td class="num" data-testid="delivered">
          {formatCount(sum.delivered)}
        </td>
        <td class="num" data-testid="retried">
          {formatCount(sum.retry)}
        </td>
        <td class="num" data-testid="failed">
          {formatCount(sum.failed)}
        </td>
        <td class="num" data-testid="skipped">
          {formatCount(sum.skipped)}
        </td>
      </>
    );
  };

  const countHeaders = (
    <>
      <th scope="col" class="num">
        Delivered
      </th>
      <th scope="col" class="num">
        Retried
      </th>
      <th scope="col" class="num">
        Failed
      </th>
      <th scope="col" class="num">
        Skipped
      </th>
    </>
  );

  /** A viewer's rows have no actions: each would send or change something. */
  const actionsHeader = viewOnly ? null : (
    <th scope="col">
      <span class="visually-hidden">Actions</span>
    </th>
  );

  const testedPartner =
    testing?.target === "partners"
      ? postbacks?.partners.find((config) => config.id === testing.id)
      : undefined;
  const testedWebhook =
    testing?.target === "webhooks"
      ? postbacks?.webhooks.find((webhook) => webhook.id === testing.id)
      : undefined;

  return (
    <Page title="Partners" subtitle={appId}>
      <p class="intro">
        Postbacks tell ad networks of the installs they won and the events you map for them;
        webhooks tell your own backend of every install and event. Each is sent once, tried again on
        a server error, a request to wait or no answer (a postback 5 times, 15 minutes apart; a
        webhook 10 times over about a day), and every attempt, and every send skipped, is logged for
        30 days.
      </p>
      <ErrorText message={loadError} />
      <ErrorText message={error} />
      <StatusText message={status} />
      <section class="card" aria-labelledby="partners-heading">
        <div class="section-head">
          <h2 id="partners-heading" tabIndex={-1}>
            Partner configurations
          </h2>
          {viewOnly ? null : (
            <button
              type="button"
              disabled={catalog === null}
              data-opens={editingOpener({ target: "partners", config: null })}
              onClick={() => startEditing({ target: "partners", config: null })}
            >
              Add a partner
            </button>
          )}
        </div>
        {postbacks === null ? (
          loadError ? null : (
            <p class="loading">Loading…</p>
          )
        ) : postbacks.partners.length === 0 ? (
          <p>No partners yet: add one to send it postbacks.</p>
        ) : (
          <TableScroll label="Partner configurations">
            <table aria-label="Partner configurations">
              <thead>
                <tr>
                  <th scope="col">Configuration</th>
                  <th scope="col">Installs</th>
                  <th scope="col">Events</th>
                  <th scope="col" class="num">
                    Window
                  </th>
                  <th scope="col">Status</th>
                  {countHeaders}
                  {actionsHeader}
                </tr>
              </thead>
              <tbody>
                {postbacks.partners.map((config) => (
                  <tr
                    key={config.id}
                    data-config-id={config.id}
                    class={config.enabled ? undefined : "muted"}
                  >
                    <td>
                      <span class="mono">{config.id}</span>
                      <div class="note">
                        {config.partner === "custom"
                          ? "Custom template"
                          : (partnerOf(config.partner)?.name ?? config.partner)}
                      </div>
                    </td>
                    <td class="wrap-words">
                      {config.installs === "all"
                        ? "All installs"
                        : `Won by ${config.media_sources.join(", ") || UNKNOWN}`}
                    </td>
                    <td class="wrap-words">
                      {Object.keys(config.events).length === 0
                        ? "None mapped"
                        : Object.entries(config.events).map(([ours, mapping]) => (
                            <div key={ours} title={ours}>
                              {eventWord(ours)} → <span class="mono">{mapping.name}</span>
                              {mapping.revenue ? " (with revenue)" : ""}
                            </div>
                          ))}
                    </td>
                    <td class="num">{config.event_window_days} days</td>
                    <td>{config.enabled ? "On" : "Off"}</td>
                    {countCells("partners", config.id)}
                    {viewOnly ? null : (
                      <td>
                        <div class="row-actions stacked">
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Send a test postback to ${config.id}`}
                            data-opens={`test:partners:${config.id}`}
                            onClick={() => startTesting({ target: "partners", id: config.id })}
                          >
                            Send a test postback
                          </button>
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Edit partner ${config.id}`}
                            disabled={catalog === null}
                            data-opens={editingOpener({ target: "partners", config })}
                            onClick={() => startEditing({ target: "partners", config })}
                          >
                            Edit
                          </button>
                          {deleteButtons("partners", config.id)}
                        </div>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
        <p class="hint">Delivered, retried and failed: the attempts of the last 30 days.</p>
      </section>
      {editing?.target === "partners" && catalog && postbacks && !viewOnly ? (
        <PartnerForm
          key={editing.config?.id ?? "new"}
          appId={appId}
          catalog={catalog}
          config={editing.config}
          takenIds={postbacks.partners.map((config) => config.id)}
          onSaved={onPartnerSaved}
          onCancel={closeEditing}
        />
      ) : null}
      {testedPartner ? (
        <TestPanel
          key={`partners:${testedPartner.id}`}
          appId={appId}
          target="partners"
          id={testedPartner.id}
          events={Object.entries(testedPartner.events).map(([ours, mapping]) => [
            ours,
            mapping.name,
          ])}
          takesInstalls={
            testedPartner.partner === "custom"
              ? Boolean(
                  typeof testedPartner.template === "object" && testedPartner.template?.install,
                )
              : (partnerOf(testedPartner.partner)?.takes_installs ?? true)
          }
          platform={platform}
          onClose={closeTesting}
        />
      ) : null}

      <section class="card" aria-labelledby="webhooks-heading">
        <div class="section-head">
          <h2 id="webhooks-heading" tabIndex={-1}>
            Webhooks
          </h2>
          {viewOnly ? null : (
            <button
              type="button"
              data-opens={editingOpener({ target: "webhooks", config: null })}
              onClick={() => startEditing({ target: "webhooks", config: null })}
            >
              Add a webhook
            </button>
          )}
        </div>
        <p class="hint">
          Your backend hears of every install once its attribution is resolved, and of every event,
          as JSON signed with HMAC-SHA256 (the <span class="mono">X-Attribution-Signature</span>{" "}
          header).
        </p>
        {postbacks === null ? null : postbacks.webhooks.length === 0 ? (
          <p>No webhooks yet.</p>
        ) : (
          <TableScroll label="Webhooks">
            <table aria-label="Webhooks">
              <thead>
                <tr>
                  <th scope="col">Webhook</th>
                  <th scope="col">URL</th>
                  <th scope="col">Status</th>
                  {countHeaders}
                  {actionsHeader}
                </tr>
              </thead>
              <tbody>
                {postbacks.webhooks.map((webhook) => (
                  <tr
                    key={webhook.id}
                    data-webhook-id={webhook.id}
                    class={webhook.enabled ? undefined : "muted"}
                  >
                    <td class="mono">{webhook.id}</td>
                    <td class="mono wrap-anywhere">{webhook.url}</td>
                    <td>{webhook.enabled ? "On" : "Off"}</td>
                    {countCells("webhooks", webhook.id)}
                    {viewOnly ? null : (
                      <td>
                        <div class="row-actions stacked">
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Send a test delivery to webhook ${webhook.id}`}
                            data-opens={`test:webhooks:${webhook.id}`}
                            onClick={() => startTesting({ target: "webhooks", id: webhook.id })}
                          >
                            Send a test delivery
                          </button>
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Edit webhook ${webhook.id}`}
                            data-opens={editingOpener({ target: "webhooks", config: webhook })}
                            onClick={() => startEditing({ target: "webhooks", config: webhook })}
                          >
                            Edit
                          </button>
                          {deleteButtons("webhooks", webhook.id)}
                        </div>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>
      {/* One card per secret made, focused as it comes: a second webhook's is a new card. */}
      {newSecret ? (
        <NewSecret key={newSecret.secret} id={newSecret.id} secret={newSecret.secret} />
      ) : null}
      {editing?.target === "webhooks" && postbacks && !viewOnly ? (
        <WebhookForm
          key={editing.config?.id ?? "new"}
          appId={appId}
          webhook={editing.config}
          takenIds={postbacks.webhooks.map((webhook) => webhook.id)}
          onSaved={onWebhookSaved}
          onCancel={closeEditing}
        />
      ) : null}
      {testedWebhook ? (
        <TestPanel
          key={`webhooks:${testedWebhook.id}`}
          appId={appId}
          target="webhooks"
          id={testedWebhook.id}
          events={[]}
          takesInstalls
          platform={platform}
          onClose={closeTesting}
        />
      ) : null}

      {postbacks ? (
        <SettingsForm
          appId={appId}
          viewOnly={viewOnly}
          shareWithoutConsent={postbacks.settings.share_device_data_without_consent}
          onSaved={(settings) => setPostbacks({ ...postbacks, settings })}
        />
      ) : null}

      <DeliveryLog
        version={logVersion}
        appId={appId}
        onRefresh={() => {
          setLogVersion((version) => version + 1);
          reload();
        }}
      />
    </Page>
  );
}

/** A webhook's signing secret, shown once: the answer that made it is the only one to hold it. */
function NewSecret(props: { id: string; secret: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // On mount, before the next event: a person (or a test) typing at once keeps the focus.
  useLayoutEffect(() => heading.current?.focus(), []);
  return (
    <section class="card">
      <h2 ref={heading} tabIndex={-1}>
        Signing secret of webhook {props.id}
      </h2>
      <CopyField value={props.secret} label="Signing secret" describedBy="new-secret-warning" />
      <p id="new-secret-warning" class="warning">
        Copy it now: this secret will not be shown again. Your backend checks each delivery's
        X-Attribution-Signature with it.
      </p>
    </section>
  );
}

const VERDICT_MEANING: Record<Verdict, string> = {
  delivered: "Delivered: a 2xx answer, naming no refusal in its body.",
  retry:
    "To be tried again: a real postback would be tried again 15 minutes later (5 attempts in all), a real webhook delivery a minute later, then at growing intervals (10 attempts over about a day).",
  failed: "Failed: a real send would not be tried again.",
};

/** The request a test sent and the answer it got: what the owner checks a partner with. */
function TestResult(props: { result: PostbackTestResult }) {
  const { request, response, verdict, warnings } = props.result;
  const headers = Object.entries(request.headers);
  return (
    <div class="test-result" data-testid="test-result">
      {warnings.length > 0 ? (
        <div class="notice" role="note" data-testid="test-warnings">
          <strong>Real postbacks differ from this test:</strong>
          <ul>
            {warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <h3>Request</h3>
      <dl class="facts">
        <dt>Method</dt>
        <dd data-testid="test-method">{request.method}</dd>
        <dt>URL</dt>
        <dd class="mono wrap-anywhere" data-testid="test-url">
          {request.url}
        </dd>
        <dt>Headers</dt>
        <dd>
          {headers.length === 0 ? (
            "None"
          ) : (
            <pre class="code">{headers.map(([name, value]) => `${name}: ${value}`).join("\n")}</pre>
          )}
        </dd>
        <dt>Body</dt>
        <dd>{request.body === null ? "None" : <pre class="code">{request.body}</pre>}</dd>
      </dl>
      <h3>Answer</h3>
      <dl class="facts">
        <dt>Status</dt>
        <dd data-testid="test-status">{response.status ?? "No answer"}</dd>
        <dt>Body (its first KiB)</dt>
        <dd>
          {response.body === null || response.body === "" ? (
            "None"
          ) : (
            <pre class="code" data-testid="test-answer">
              {response.body}
            </pre>
          )}
        </dd>
        <dt>Error</dt>
        <dd data-testid="test-error">{response.error ?? "None"}</dd>
        <dt>Verdict</dt>
        <dd data-testid="test-verdict" class={`verdict verdict-${verdict}`}>
          {VERDICT_MEANING[verdict]}
        </dd>
      </dl>
    </div>
  );
}

/** "Send a test postback": what to send (an install or a mapped event, a platform), then both sides. */
function TestPanel(props: {
  appId: string;
  target: PostbackTarget;
  id: string;
  /** The mapped events: our name, the partner's. */
  events: [ours: string, theirs: string][];
  takesInstalls: boolean;
  platform: Platform;
  onClose: () => void;
}) {
  const { appId, target, id, events } = props;
  const [what, setWhat] = useState<string>(
    props.takesInstalls || events.length === 0 ? "install" : `event:${events[0]?.[0] ?? ""}`,
  );
  const [platform, setPlatform] = useState<Platform>(props.platform);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<PostbackTestResult | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const headingId = `test-${target}-${id}`;
  // On mount, before the next event: a person (or a test) typing at once keeps the focus.
  useLayoutEffect(() => heading.current?.focus(), []);

  const send = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const eventName = what.startsWith("event:") ? what.slice("event:".length) : undefined;
      setResult(
        await testPostback(appId, target, id, {
          kind: eventName === undefined ? "install" : "event",
          platform,
          ...(eventName === undefined ? {} : { event_name: eventName }),
        }),
      );
    } catch (caught) {
      const message =
        caught instanceof ApiError && caught.status === 422
          ? caught.detail.replace(/^body:\s*/, "")
          : errorMessage(caught);
      setError(`Not sent: ${message}`);
    } finally {
      setBusy(false);
    }
  };

  const word = target === "partners" ? "postback" : "delivery";
  return (
    <section class="card" aria-labelledby={headingId} aria-busy={busy}>
      <h2 id={headingId} ref={heading} tabIndex={-1}>
        Test {word} to {target === "partners" ? "" : "webhook "}
        {id}
      </h2>
      <p class="hint">
        A sample install or event (its ids all zeros) goes once to the real URL, whether the
        configuration is on or off; it is neither logged nor counted.
      </p>
      <form class="stack" onSubmit={send} aria-describedby={`${headingId}-error`}>
        <div class="form-grid">
          <label class="field">
            <span>What to send</span>
            <select
              name="test_kind"
              value={what}
              onChange={(event) => setWhat(event.currentTarget.value)}
            >
              {props.takesInstalls ? <option value="install">The install</option> : null}
              {target === "partners"
                ? events.map(([ours, theirs]) => (
                    <option key={ours} value={`event:${ours}`}>
                      Event {eventWord(ours)} (as {theirs})
                    </option>
                  ))
                : null}
            </select>
          </label>
          <label class="field">
            <span>Platform</span>
            <select
              name="test_platform"
              value={platform}
              onChange={(event) => setPlatform(event.currentTarget.value as Platform)}
            >
              <option value="android">Android</option>
              <option value="ios">iOS</option>
            </select>
          </label>
        </div>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {target === "partners" ? "Send test postback" : "Send test delivery"}
          </button>
          <button type="button" class="secondary" onClick={props.onClose}>
            Close
          </button>
          <div class="status" role="status">
            {busy ? "Sending…" : result ? `Answered ${result.response.status ?? "nothing"}.` : ""}
          </div>
        </div>
        <ErrorText id={`${headingId}-error`} message={error} />
      </form>
      {result ? <TestResult result={result} /> : null}
    </section>
  );
}

/** The app's one postback setting: device data of an install whose user was never asked. */
function SettingsForm(props: {
  appId: string;
  /** A viewer sees the setting and cannot change it. */
  viewOnly: boolean;
  shareWithoutConsent: boolean;
  onSaved: (settings: { share_device_data_without_consent: boolean }) => void;
}) {
  const [share, setShare] = useState(props.shareWithoutConsent);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      const saved = await savePostbackSettings(props.appId, {
        share_device_data_without_consent: share,
      });
      props.onSaved(saved);
      setStatus("Setting saved.");
    } catch (caught) {
      setError(`Not saved: ${errorMessage(caught)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="postback-settings-heading">
      <h2 id="postback-settings-heading">Device data and consent</h2>
      <form class="stack" onSubmit={save} aria-describedby="postback-settings-error">
        <label class="check">
          <input
            type="checkbox"
            name="share_device_data_without_consent"
            aria-describedby="share-without-consent-hint"
            checked={share}
            disabled={props.viewOnly}
            onChange={(event) => setShare(event.currentTarget.checked)}
          />
          <span>Share device data without consent</span>
        </label>
        <div id="share-without-consent-hint" class="hint">
          <p>
            Ad networks get an install's advertising id, IDFV and IP address only where its user
            allowed sharing ad data, as the SDK reports it. This setting decides for the installs
            whose user was never asked (no consent reported, or no answer where the GDPR does not
            apply): on, their device data goes to ad networks; off, it does not.
          </p>
          <p>
            Turn it on only when your app asks for that consent in its own flow before it starts the
            SDK. A user who said no, or one under the GDPR who did not say yes, is never shared,
            whatever this says.
          </p>
        </div>
        {props.viewOnly ? null : (
          <div class="actions">
            <button type="submit" disabled={busy}>
              Save setting
            </button>
            <StatusText message={status} />
          </div>
        )}
        <ErrorText id="postback-settings-error" message={error} />
      </form>
    </section>
  );
}

/**
 * The delivery log: the latest attempts, newest first, a page at a time. `version` bumped reads
 * the first page again in place: the log stays mounted, so Refresh keeps the keyboard's focus.
 */
function DeliveryLog(props: { appId: string; version: number; onRefresh: () => void }) {
  const { appId, version } = props;
  const [entries, setEntries] = useState<DeliveryAttempt[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Each reading of the first page: a page asked for before the latest one is not shown. */
  const reading = useRef(0);
  const moreButton = useRef<HTMLButtonElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    // `version` is read again on Refresh.
    void version;
    const asked = ++reading.current;
    setError(null);
    getDeliveryLog(appId, { limit: LOG_PAGE }).then(
      (page) => {
        if (asked !== reading.current) return;
        setEntries(page.data);
        setCursor(page.next_cursor);
      },
      (caught: unknown) => {
        if (asked === reading.current) setError(errorMessage(caught));
      },
    );
  }, [appId, version]);

  // A second press while a page is on its way would ask for the same page again (a ref: two
  // presses before the log renders again both see the state as it was).
  const moreOnItsWay = useRef(false);
  const loadMore = async () => {
    if (!cursor || moreOnItsWay.current) return;
    moreOnItsWay.current = true;
    const asked = reading.current;
    setBusy(true);
    try {
      const page = await getDeliveryLog(appId, { limit: LOG_PAGE, cursor });
      // A Refresh since: the first page read again, which this page does not follow.
      if (asked !== reading.current) return;
      setEntries((current) => [...(current ?? []), ...page.data]);
      setCursor(page.next_cursor);
      // The last page takes the button away, and the focus it had with it: the log's heading
      // takes it, rather than the page's start.
      if (page.next_cursor === null && document.activeElement === moreButton.current) {
        requestAnimationFrame(() => heading.current?.focus());
      }
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      moreOnItsWay.current = false;
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="delivery-log-heading">
      <div class="section-head">
        <h2 id="delivery-log-heading" ref={heading} tabIndex={-1}>
          Delivery log
        </h2>
        <button type="button" class="secondary" onClick={props.onRefresh}>
          Refresh
        </button>
      </div>
      <p class="hint">
        Every attempt of the last 30 days, newest first; secrets in URLs are masked (***).
      </p>
      <ErrorText message={error} />
      {entries === null ? (
        error ? null : (
          <p class="loading">Loading…</p>
        )
      ) : entries.length === 0 ? (
        <p>No attempts yet.</p>
      ) : (
        <TableScroll label="Delivery log">
          <table aria-label="Delivery log">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Configuration</th>
                <th scope="col">Of</th>
                <th scope="col" class="num">
                  Attempt
                </th>
                <th scope="col">Status or error</th>
                <th scope="col">Verdict</th>
                <th scope="col">URL</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr
                  key={`${entry.send_id}:${entry.attempt}:${entry.time}`}
                  data-send-id={entry.send_id}
                >
                  <td>{formatTime(entry.time)}</td>
                  <td>
                    <span class="mono">{entry.config_id}</span>
                    <div class="note">{entry.target === "webhook" ? "webhook" : entry.partner}</div>
                  </td>
                  <td>
                    {entry.kind === "install" ? "Install" : "Event"}
                    <div class="note mono" title={entry.event_id ?? entry.service_id}>
                      {(entry.event_id ?? entry.service_id).slice(0, 8)}…
                    </div>
                  </td>
                  <td class="num">
                    {entry.attempt}
                    {entry.retry ? <div class="note">retry</div> : null}
                  </td>
                  <td class="wrap-words">
                    {entry.status !== null ? entry.status : null}
                    {entry.error ? <div class="note">{entry.error}</div> : null}
                  </td>
                  <td class={`verdict verdict-${entry.verdict}`}>
                    {verdictWord(entry.verdict)}
                    {entry.reason ? (
                      <div class="note" data-testid="skip-reason">
                        {entry.reason}
                      </div>
                    ) : null}
                  </td>
                  <td class="mono wrap-anywhere">
                    {entry.method} {entry.url}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {cursor ? (
        <div class="actions">
          {/* aria-disabled, not disabled: a disabled button would let the focus go. */}
          <button
            ref={moreButton}
            type="button"
            class="secondary"
            aria-disabled={busy}
            onClick={loadMore}
          >
            Load more attempts
          </button>
        </div>
      ) : null}
    </section>
  );
}
