/**
 * The pieces of a form the service may refuse: each input labelled, marked when refused
 * (`aria-invalid`, the reason beside it and named by `aria-describedby`), the problems listed
 * under the form and read out at once, and focus on the first input refused.
 */
import type { ComponentChildren } from "preact";
import { capitalised, plainMessage, problemsOf } from "../messages.ts";

/** One thing the service (or the form itself) refused: of an input, or of the whole form. */
export interface FormProblem {
  /** The input's field name, the API's (`campaign_name`); null for none of the form's inputs. */
  readonly field: string | null;
  readonly text: string;
}

const PROBLEM =
  /^((?:[A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])*):\s(.*)$/s;

/**
 * A 422's detail (`path: message; path: message`, as the service joins its problems) as the
 * form's problems: one of an input the form has, named by its label and in plain words
 * (`Campaign name must be at most 200 characters`), to show beside it; any other in the
 * service's words. `labels` are the form's inputs by the API's field names.
 */
export const formProblemsOf = (
  detail: string,
  labels: Readonly<Record<string, string>>,
): FormProblem[] =>
  problemsOf(detail).map((problem): FormProblem => {
    const match = PROBLEM.exec(problem);
    const path = match?.[1]?.replace(/^body(?:\.|$)/, "") ?? "";
    const field = /^[A-Za-z_][A-Za-z0-9_]*/.exec(path)?.[0] ?? "";
    const label = Object.hasOwn(labels, field) ? labels[field] : undefined;
    if (!match?.[2] || label === undefined) {
      return { field: null, text: capitalised(plainMessage(problem)) };
    }
    const message = plainMessage(match[2]);
    const within = path
      .slice(field.length)
      .replace(/^\./, "")
      .replace(/^\["(.*)"\]$/s, "$1");
    // A rule that names its input itself ("app id must be …") is said as it is.
    const text = within
      ? `${label}, ${within}: ${message}`
      : message.toLowerCase().startsWith(label.toLowerCase())
        ? capitalised(message)
        : `${label} ${message}`;
    return { field, text };
  });

/** The first problem of each input, to show beside it. */
export const problemsByField = (problems: readonly FormProblem[]): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const problem of problems) {
    if (problem.field && fields[problem.field] === undefined) fields[problem.field] = problem.text;
  }
  return fields;
};

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
