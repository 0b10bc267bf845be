/**
 * What a form's refusal says, input by input (./components/form-fields.tsx shows it): the
 * service's problems by the API's field names, in the form's words.
 */
import { ApiError, errorMessage } from "./api.ts";
import { capitalised, plainMessage, problemsOf } from "./messages.ts";

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

/**
 * A form's refusal as its problems: a 422's by input (`formProblemsOf`), a 409 as `taken` says
 * it when the form makes a record whose key may be taken, anything else in one message.
 */
export const refusalProblems = (
  caught: unknown,
  labels: Readonly<Record<string, string>>,
  taken?: FormProblem,
): FormProblem[] =>
  caught instanceof ApiError && caught.status === 409 && taken
    ? [taken]
    : caught instanceof ApiError && caught.status === 422
      ? formProblemsOf(caught.detail || caught.error, labels)
      : [{ field: null, text: errorMessage(caught) }];

/** The first problem of each input, to show beside it. */
export const problemsByField = (problems: readonly FormProblem[]): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const problem of problems) {
    if (problem.field && fields[problem.field] === undefined) fields[problem.field] = problem.text;
  }
  return fields;
};
