import type { Ref } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import {
  type ApiKey,
  createKey,
  errorMessage,
  type KeyKind,
  listKeys,
  type NewApiKey,
  revokeKey,
} from "../api.ts";
import { CopyField } from "../components/copy-field.tsx";
import { ErrorText, Page, StatusText, TableScroll } from "../components/page.tsx";
import { formatTime, UNKNOWN } from "../format.ts";
import { useViewOnly } from "../session.tsx";

const KIND_NAMES: Record<KeyKind, string> = { sdk: "SDK", server: "Server" };

export function KeysPage(props: { appId: string }) {
  const { appId } = props;
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const viewOnly = useViewOnly();
  const newKeyHeading = useRef<HTMLHeadingElement>(null);

  const reload = useCallback(
    () => listKeys(appId).then(setKeys, (caught: unknown) => setError(errorMessage(caught))),
    [appId],
  );

  useEffect(() => {
    reload();
  }, [reload]);

  const cancelled = useRef<string | null>(null);
  useEffect(() => {
    if (confirming) {
      confirmButton.current?.focus();
    } else if (cancelled.current) {
      // Back to the key's Revoke button, which the confirm step replaced.
      document
        .querySelector<HTMLButtonElement>(
          `tr[data-key-id="${CSS.escape(cancelled.current)}"] button[data-revoke]`,
        )
        ?.focus();
      cancelled.current = null;
    }
  }, [confirming]);

  useEffect(() => {
    if (created) newKeyHeading.current?.focus();
  }, [created]);

  const create = async (kind: KeyKind) => {
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      const key = await createKey(appId, kind);
      setCreated(key);
      await reload();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (keyId: string) => {
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      const revoked = await revokeKey(appId, keyId);
      setConfirming(null);
      setKeys((current) => current?.map((k) => (k.key_id === keyId ? revoked : k)) ?? current);
      setStatus(`Key ${keyId} revoked.`);
      // A revoked key's row has no button left to hold the focus: the list's heading takes it.
      requestAnimationFrame(() => document.getElementById("key-list-heading")?.focus());
    } catch (caught) {
      setError(errorMessage(caught));
      // The confirm button was disabled while asking, which let the focus go: it takes it back.
      requestAnimationFrame(() => confirmButton.current?.focus());
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title="Keys" subtitle={appId}>
      {viewOnly ? null : (
        <NewKey busy={busy} created={created} headingRef={newKeyHeading} onCreate={create} />
      )}
      <ErrorText message={error} />
      <StatusText message={status} />
      <section class="card">
        <h2 id="key-list-heading" tabIndex={-1}>
          Key list
        </h2>
        {keys === null ? (
          error ? null : (
            <p class="loading">Loading…</p>
          )
        ) : keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <TableScroll label="Keys">
            <table aria-label="Keys">
              <thead>
                <tr>
                  <th scope="col">Key id</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Revoked</th>
                  {viewOnly ? null : (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.key_id} data-key-id={key.key_id}>
                    <td class="mono">{key.key_id}</td>
                    <td>{KIND_NAMES[key.kind] ?? key.kind}</td>
                    <td>{key.scopes.join(", ") || UNKNOWN}</td>
                    <td>{formatTime(key.created_at)}</td>
                    <td>{key.revoked_at ? formatTime(key.revoked_at) : "No"}</td>
                    {viewOnly ? null : (
                      <td>
                        {key.revoked_at ? null : (
                          <div class="row-actions">
                            {confirming === key.key_id ? (
                              <>
                                <button
                                  ref={confirmButton}
                                  type="button"
                                  class="danger"
                                  disabled={busy}
                                  aria-label={`Confirm revoke of key ${key.key_id}`}
                                  onClick={() => revoke(key.key_id)}
                                >
                                  Confirm revoke
                                </button>
                                <button
                                  type="button"
                                  class="secondary"
                                  onClick={() => {
                                    cancelled.current = key.key_id;
                                    setConfirming(null);
                                  }}
                                >
                                  Cancel
                                </button>
                              </>
                            ) : (
                              <button
                                type="button"
                                class="secondary"
                                data-revoke
                                disabled={busy}
                                // Each row has one: a screen reader's list of buttons names its key.
                                aria-label={`Revoke key ${key.key_id}`}
                                onClick={() => setConfirming(key.key_id)}
                              >
                                Revoke
                              </button>
                            )}
                          </div>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>
    </Page>
  );
}

/** Making a key: an SDK key or a server key, the new one shown this once. */
function NewKey(props: {
  busy: boolean;
  created: NewApiKey | null;
  headingRef: Ref<HTMLHeadingElement>;
  onCreate: (kind: KeyKind) => void;
}) {
  const { busy, created } = props;
  return (
    <section class="card">
      <h2>New key</h2>
      <p class="hint">
        SDK keys go in the app; server keys call the export and the reports from your servers.
      </p>
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => props.onCreate("sdk")}>
          Create SDK key
        </button>
        <button type="button" disabled={busy} onClick={() => props.onCreate("server")}>
          Create server key
        </button>
      </div>
      {created ? (
        <div class="new-key">
          <h3 ref={props.headingRef} tabIndex={-1}>
            Your new {KIND_NAMES[created.kind]} key
          </h3>
          {/* One field per key made: nothing of the last key's field stays with the next. */}
          <CopyField
            key={created.key_id}
            value={created.key}
            label="New key"
            describedBy="new-key-warning"
          />
          <p id="new-key-warning" class="warning">
            Copy it now: this key will not be shown again.
          </p>
        </div>
      ) : null}
    </section>
  );
}
