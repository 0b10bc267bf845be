/**
 * The pieces of a form the service may refuse: each input labelled, marked when refused
 * (`aria-invalid`, the reason beside it and named by `aria-describedby`), the problems listed
 * under the form and read out at once, and focus on the first input refused.
 */
import type { ComponentChildren } from "preact";

/** The form's problems, read out at once: each in the form's words, or the one message. */
export function Problems(props: { id: string; problems: readonly { readonly text: string }[] }) {
  const { problems } = props;
  return (
    <div class="error" role="alert" id={props.id}>
      {problems.length === 0 ? null : problems.length === 1 ? (
        `Not saved. ${problems[0]?.text ?? ""}`
      ) : (
        <>
          Not saved:
          <ul>
            {problems.map((problem) => (
              <li key={problem.text}>{problem.text}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** The ids and marks of one input of a form whose refused fields are named in `errors`. */
export const fieldProps = (prefix: string, errors: Record<string, string>) => {
  const idOf = (field: string) => `${prefix}-${field.replace(/[^A-Za-z0-9_-]/g, "-")}`;
  return {
    idOf,
    errorIdOf: (field: string) => `${idOf(field)}-error`,
    control: (field: string, describedBy?: string) => {
      const refused = errors[field] !== undefined;
      const described = [refused ? `${idOf(field)}-error` : null, describedBy ?? null]
        .filter((id) => id !== null)
        .join(" ");
      return {
        id: idOf(field),
        ...(refused ? { "aria-invalid": "true" as const } : {}),
        ...(described ? { "aria-describedby": described } : {}),
      };
    },
  };
};

export function FieldError(props: { id: string; error: string | undefined }) {
  return props.error ? (
    <span id={props.id} class="field-error">
      {props.error}
    </span>
  ) : null;
}

/** A labelled input, its hint and, when the service refused it, the reason below it. */
export function Field(props: {
  id: string;
  label: string;
  error: string | undefined;
  hint?: ComponentChildren;
  hintId?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint ? (
        <small id={props.hintId} class="field-hint">
          {props.hint}
        </small>
      ) : null}
      <FieldError id={`${props.id}-error`} error={props.error} />
    </div>
  );
}

/** Focus on the first input the service refused, once the form has marked it. */
export const focusFirstRefused = (form: HTMLFormElement | null) =>
  requestAnimationFrame(() => {
    form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  });
