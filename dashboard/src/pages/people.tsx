/**
 * The People page, an admin's: who may sign in and which apps each sees, as `attribution users`
 * manages them from the command line. A password is made by the service and shown here once,
 * when a person is added or their password is reset; the service refuses every other session
 * these calls, so the page is only offered to an admin.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import {
  addPerson,
  errorMessage,
  grantApp,
  listPeople,
  type Person,
  type Role,
  removePerson,
  resetPassword,
  revokeApp,
} from "../api.ts";
import { CopyField } from "../components/copy-field.tsx";
import { Field, fieldProps, focusFirstRefused, Problems } from "../components/form-fields.tsx";
import { ErrorText, Page, StatusText, TableScroll } from "../components/page.tsx";
import { type FormProblem, problemsByField, refusalProblems } from "../form-problems.ts";
import { formatDay } from "../format.ts";
import { useSession } from "../session.tsx";

const ROLE_NAMES: Record<Role, string> = { admin: "Admin", member: "Member", viewer: "Viewer" };

const ROLE_HINTS: Record<Role, string> = {
  member: "Sees and changes the apps ticked below.",
  viewer: "Sees the reports and exports of the apps ticked below, and changes nothing.",
  admin: "Sees and changes every app, and manages the people.",
};

/** The form's inputs by the API's field names, as a refusal names them. */
const PERSON_LABELS: Readonly<Record<string, string>> = {
  email: "Email",
  role: "Role",
  app_ids: "Apps",
};

/** A password shown once: whose, and why it was made. */
interface ShownPassword {
  readonly email: string;
  readonly password: string;
  readonly made: "added" | "reset";
}

/** Whether the signed-in person may manage the people: an admin, who is never a viewer. */
export const managesPeople = (user: { admin: boolean; viewer: boolean }): boolean =>
  user.admin && !user.viewer;

export function PeoplePage() {
  const { user } = useSession();
  if (!managesPeople(user)) {
    return (
      <Page title="People">
        <p>Only an admin manages the people who may sign in.</p>
      </Page>
    );
  }
  return <People />;
}

function People() {
  const { user } = useSession();
  const [people, setPeople] = useState<Person[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [shown, setShown] = useState<ShownPassword | null>(null);
  const [busy, setBusy] = useState(false);
  /** The row whose change awaits its confirmation: a reset or a removal. */
  const [confirming, setConfirming] = useState<{
    email: string;
    action: "reset" | "remove";
  } | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const shownHeading = useRef<HTMLHeadingElement>(null);

  const reload = useCallback(
    () =>
      listPeople().then(
        (listed) => {
          setPeople(listed);
          setError(null);
        },
        (caught: unknown) => setError(errorMessage(caught)),
      ),
    [],
  );

  useEffect(() => {
    reload();
  }, [reload]);

  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);

  useEffect(() => {
    if (shown) shownHeading.current?.focus();
  }, [shown]);

  /**
   * Runs one change of a row's, then lists the people again; `focusAfter`, where the focus goes
   * once the list is drawn again (the button pressed may have gone with the change).
   */
  const change = async (what: () => Promise<string | null>, focusAfter?: () => void) => {
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      const said = await what();
      setConfirming(null);
      if (said) setStatus(said);
      await reload();
      if (focusAfter) requestAnimationFrame(focusAfter);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  const reset = (email: string) =>
    change(async () => {
      const password = await resetPassword(email);
      setShown({ email, password, made: "reset" });
      return null;
    });

  const remove = (email: string) =>
    change(async () => {
      await removePerson(email);
      if (shown?.email === email) setShown(null);
      requestAnimationFrame(() => document.getElementById("people-list-heading")?.focus());
      return `Removed ${email}; their sessions have ended.`;
    });

  /** After a grant or a revoke: the person's choice of an app to grant, else the list. */
  const focusApps = (email: string) => () =>
    (
      document.querySelector<HTMLElement>(`tr[data-email="${CSS.escape(email)}"] select`) ??
      document.getElementById("people-list-heading")
    )?.focus();

  const grant = (email: string, appId: string) =>
    change(async () => {
      await grantApp(email, appId);
      return `${email} may now see ${appId}.`;
    }, focusApps(email));

  const revoke = (email: string, appId: string) =>
    change(async () => {
      await revokeApp(email, appId);
      return `${email} may no longer see ${appId}.`;
    }, focusApps(email));

  return (
    <Page title="People">
      <p class="hint">
        Who may sign in to this dashboard, and which apps each sees. An admin sees every app.
      </p>
      <AddPersonForm
        onAdded={async (added) => {
          setShown({ email: added.user.email, password: added.password, made: "added" });
          await reload();
        }}
      />
      {shown ? (
        <section class="card new-key" aria-labelledby="shown-password-heading">
          <h2 id="shown-password-heading" ref={shownHeading} tabIndex={-1}>
            {shown.made === "added" ? "Password of " : "New password of "}
            {shown.email}
          </h2>
          {/* One field per password shown: nothing of the last one's field stays with the next. */}
          <CopyField
            key={`${shown.email} ${shown.password}`}
            value={shown.password}
            label="Password"
            describedBy="shown-password-warning"
          />
          <p id="shown-password-warning" class="warning">
            Copy it now and hand it to {shown.email}: this password will not be shown again.
          </p>
          <div class="actions">
            <button type="button" class="secondary" onClick={() => setShown(null)}>
              Done
            </button>
          </div>
        </section>
      ) : null}
      <ErrorText message={error} />
      <StatusText message={status} />
      <section class="card" aria-labelledby="people-list-heading">
        <h2 id="people-list-heading" tabIndex={-1}>
          People
        </h2>
        {people === null ? (
          error ? null : (
            <p class="loading">Loading…</p>
          )
        ) : (
          <TableScroll label="People">
            <table aria-label="People">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Apps</th>
                  <th scope="col">TOTP</th>
                  <th scope="col">Since</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {people.map((person) => (
                  <tr key={person.email} data-email={person.email}>
                    <td>
                      {person.email}
                      {person.email === user.email ? <span class="note"> (you)</span> : null}
                    </td>
                    <td>{ROLE_NAMES[person.role] ?? person.role}</td>
                    <td>
                      <PersonApps
                        person={person}
                        busy={busy}
                        onGrant={(appId) => grant(person.email, appId)}
                        onRevoke={(appId) => revoke(person.email, appId)}
                      />
                    </td>
                    <td>{person.totp ? "Set up" : "No"}</td>
                    <td>{formatDay(person.created_at.slice(0, 10))}</td>
                    <td>
                      {confirming?.email === person.email ? (
                        <div class="row-actions stacked">
                          <button
                            ref={confirmButton}
                            type="button"
                            class="danger"
                            disabled={busy}
                            aria-label={
                              confirming.action === "reset"
                                ? `Confirm password reset of ${person.email}`
                                : `Confirm removal of ${person.email}`
                            }
                            onClick={() =>
                              confirming.action === "reset"
                                ? reset(person.email)
                                : remove(person.email)
                            }
                          >
                            {confirming.action === "reset" ? "Confirm reset" : "Confirm remove"}
                          </button>
                          <button
                            type="button"
                            class="secondary"
                            onClick={() => {
                              setConfirming(null);
                              requestAnimationFrame(() =>
                                document
                                  .querySelector<HTMLButtonElement>(
                                    `tr[data-email="${CSS.escape(person.email)}"] button[data-${confirming.action}]`,
                                  )
                                  ?.focus(),
                              );
                            }}
                          >
                            Cancel
                          </button>
                          <p class="note">
                            {confirming.action === "reset"
                              ? "Their old password stops working and their sessions end."
                              : "They can no longer sign in, and their sessions end."}
                          </p>
                        </div>
                      ) : (
                        <div class="row-actions stacked">
                          {/* One's own: a reset would end this session before its password shows. */}
                          {person.email === user.email ? null : (
                            <button
                              type="button"
                              class="secondary"
                              data-reset
                              disabled={busy}
                              aria-label={`Reset the password of ${person.email}`}
                              onClick={() =>
                                setConfirming({ email: person.email, action: "reset" })
                              }
                            >
                              Reset password
                            </button>
                          )}
                          {person.email === user.email ? null : (
                            <button
                              type="button"
                              class="secondary"
                              data-remove
                              disabled={busy}
                              aria-label={`Remove ${person.email}`}
                              onClick={() =>
                                setConfirming({ email: person.email, action: "remove" })
                              }
                            >
                              Remove
                            </button>
                          )}
                        </div>
                      )}
                    </td>
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

/** A person's apps: each granted one with its Revoke button, and a choice of one to grant. */
function PersonApps(props: {
  person: Person;
  busy: boolean;
  onGrant: (appId: string) => void;
  onRevoke: (appId: string) => void;
}) {
  const { person, busy } = props;
  const { apps } = useSession();
  const [chosen, setChosen] = useState("");
  if (person.role === "admin") return <span>Every app</span>;
  const nameOf = (appId: string) => apps?.find((app) => app.app_id === appId)?.name;
  const grantable = (apps ?? []).filter((app) => !person.app_ids.includes(app.app_id));
  // One id per email: each other character by its code, so that two emails never meet.
  const selectId = `grant-${person.email.replace(/[^A-Za-z0-9]/g, (c) => `_${c.codePointAt(0)?.toString(16)}_`)}`;
  return (
    <div>
      {person.app_ids.length === 0 ? (
        <p class="note">No app yet.</p>
      ) : (
        <ul class="plain-list" aria-label={`Apps of ${person.email}`}>
          {person.app_ids.map((appId) => (
            <li key={appId} class="person-app">
              <span class="mono">{appId}</span>
              {nameOf(appId) ? ` (${nameOf(appId)})` : null}{" "}
              <button
                type="button"
                class="link-button"
                disabled={busy}
                aria-label={`Revoke ${appId} from ${person.email}`}
                onClick={() => props.onRevoke(appId)}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      {grantable.length === 0 ? null : (
        <div class="row-actions">
          <label class="visually-hidden" for={selectId}>
            App to grant to {person.email}
          </label>
          <select
            id={selectId}
            value={chosen}
            onChange={(event) => setChosen(event.currentTarget.value)}
          >
            <option value="">Choose an app…</option>
            {grantable.map((app) => (
              <option key={app.app_id} value={app.app_id}>
                {app.name} ({app.app_id})
              </option>
            ))}
          </select>
          <button
            type="button"
            class="secondary"
            disabled={busy || chosen === ""}
            aria-label={`Grant the chosen app to ${person.email}`}
            onClick={() => {
              props.onGrant(chosen);
              setChosen("");
            }}
          >
            Grant
          </button>
        </div>
      )}
    </div>
  );
}

/** Adding a person: their email, role and apps; the password made is shown by the page. */
function AddPersonForm(props: {
  onAdded: (added: { user: Person; password: string }) => Promise<void>;
}) {
  const { apps } = useSession();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [appIds, setAppIds] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<FormProblem[]>([]);
  const form = useRef<HTMLFormElement>(null);
  const errors = problemsByField(problems);
  const { idOf, control } = fieldProps("add-person", errors);
  const changed = (field: string) =>
    setProblems((current) => current.filter((problem) => problem.field !== field));

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblems([]);
    try {
      const added = await addPerson({
        email: email.trim(),
        role,
        // An admin sees every app: the service refuses apps named for one.
        ...(role === "admin" ? {} : { app_ids: appIds }),
      });
      setEmail("");
      setRole("member");
      setAppIds([]);
      await props.onAdded(added);
    } catch (caught) {
      setProblems(
        refusalProblems(caught, PERSON_LABELS, {
          field: "email",
          text: `A person with the email ${email.trim()} already exists.`,
        }),
      );
      focusFirstRefused(form.current);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="add-person-heading" class="card">
      <h2 id="add-person-heading">Add a person</h2>
      <form
        ref={form}
        class="form-grid"
        onSubmit={submit}
        aria-labelledby="add-person-heading"
        aria-describedby="add-person-error"
        aria-busy={busy}
      >
        <Field id={idOf("email")} label="Email" error={errors.email}>
          <input
            name="email"
            type="email"
            required
            autocomplete="off"
            spellcheck={false}
            maxLength={320}
            {...control("email")}
            value={email}
            onInput={(event) => {
              setEmail(event.currentTarget.value);
              changed("email");
            }}
          />
        </Field>
        <Field
          id={idOf("role")}
          label="Role"
          error={errors.role}
          hint={ROLE_HINTS[role]}
          hintId="add-person-role-hint"
        >
          <select
            name="role"
            {...control("role", "add-person-role-hint")}
            value={role}
            onChange={(event) => {
              setRole(event.currentTarget.value as Role);
              changed("role");
              changed("app_ids");
            }}
          >
            <option value="member">Member</option>
            <option value="viewer">Viewer</option>
            <option value="admin">Admin</option>
          </select>
        </Field>
        {role === "admin" ? null : (
          <fieldset {...(errors.app_ids ? { "aria-describedby": `${idOf("app_ids")}-error` } : {})}>
            <legend>Apps</legend>
            {apps === null ? (
              <p class="loading">Loading…</p>
            ) : apps.length === 0 ? (
              <p class="hint">No app yet: grant one once it is made.</p>
            ) : (
              apps.map((app) => (
                <label class="check" key={app.app_id}>
                  <input
                    type="checkbox"
                    name="app_ids"
                    value={app.app_id}
                    checked={appIds.includes(app.app_id)}
                    onChange={(event) => {
                      const { checked } = event.currentTarget;
                      setAppIds((current) =>
                        checked
                          ? [...current, app.app_id]
                          : current.filter((id) => id !== app.app_id),
                      );
                      changed("app_ids");
                    }}
                  />
                  <span class="app-choice">
                    {app.name} <span class="mono">({app.app_id})</span>
                  </span>
                </label>
              ))
            )}
            {errors.app_ids ? (
              <span id={`${idOf("app_ids")}-error`} class="field-error">
                {errors.app_ids}
              </span>
            ) : null}
          </fieldset>
        )}
        <div class="actions">
          <button type="submit" disabled={busy}>
            Add person
          </button>
        </div>
      </form>
      <Problems id="add-person-error" problems={problems} />
    </section>
  );
}
