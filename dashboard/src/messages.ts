/**
 * The service's words for a refused value, where it left them to its validation library (zod:
 * "Too big: expected string to have <=200 characters"), in the words the forms use beside an
 * input ("must be at most 200 characters"). The service's own words pass as they are.
 */
export const plainMessage = (message: string): string =>
  message
    .replace(/^Too small: expected number to be >=\s*(\S+)$/, "must be at least $1")
    .replace(/^Too big: expected number to be <=\s*(\S+)$/, "must be at most $1")
    .replace(/^Too small: expected number to be >\s*(\S+)$/, "must be more than $1")
    .replace(/^Too big: expected number to be <\s*(\S+)$/, "must be less than $1")
    .replace(/^Too small: expected string to have >=1 characters?$/, "must not be empty")
    .replace(
      /^Too small: expected string to have >=(\d+) characters$/,
      "must be at least $1 characters",
    )
    .replace(
      /^Too big: expected string to have <=(\d+) characters$/,
      "must be at most $1 characters",
    )
    .replace(/^Too big: expected array to have <=(\d+) items$/, "may have at most $1")
    .replace(/^Invalid input: expected number, received NaN$/, "must be a number")
    .replace(/^Invalid input: expected (\w+), received \w+$/, "must be a $1")
    .replace(/^Invalid URL$/, "must be a URL")
    .replace(
      /^Invalid option: expected one of (.+)$/,
      (_, options: string) => `must be one of ${options.replace(/"/g, "").split("|").join(", ")}`,
    );

export const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * What a 422's detail ends with when it names only its first problems (`and 3 more`, as the
 * service joins them), in a sentence; null for any other problem.
 */
export const moreProblems = (problem: string): string | null => {
  const count = /^and (\d+) more$/.exec(problem)?.[1];
  if (count === undefined) return null;
  return `And ${count} more problem${count === "1" ? "" : "s"}.`;
};

/** Where the next of a detail's problems begins: its path and `: `, or the count past the last. */
const NEXT_PROBLEM =
  /; (?=(?:[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])(?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])*:\s|and \d+ more$)/;

/**
 * A 422's detail as its problems: the service joins them with `; ` (`body.rows[2].day: must …;
 * body.rows[4].amount: must …; and 3 more`), and a problem's own words may hold a `; ` too, so
 * the detail is cut only where the next problem's path (or the count) begins.
 */
export const problemsOf = (detail: string): string[] =>
  detail.split(NEXT_PROBLEM).map((problem) => problem.trim());
