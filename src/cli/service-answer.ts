/** What the commands that call the service's HTTP API read of its answers. */

/** A body's text read as JSON; nothing of one that is not (a gateway's own page, say). */
export const answerOfText = (text: string): Record<string, unknown> => {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** An answer's body read as JSON; nothing of one that is not. */
export const answerOf = async (response: Response): Promise<Record<string, unknown>> =>
  answerOfText(await response.text());

/** Why the service refused a request, in its words (`{error, detail}`), else the status's. */
export const refusalOf = (
  response: Pick<Response, "statusText">,
  body: Record<string, unknown>,
): string => String(body.detail ?? body.error ?? response.statusText);

/**
 * `Retry in 60 s.` of a 503 or 429 whose Retry-After says when (delay-seconds, or an HTTP
 * date); undefined otherwise. The service's own words point at the header, which a person at a
 * terminal never sees.
 */
export const retryHintOf = (
  status: number,
  retryAfter: string | null | undefined,
  now: number = Date.now(),
): string | undefined => {
  if ((status !== 503 && status !== 429) || !retryAfter) return undefined;
  const value = retryAfter.trim();
  const seconds = /^\d+$/.test(value) ? Number(value) : Math.ceil((Date.parse(value) - now) / 1000);
  if (Number.isNaN(seconds)) return undefined;
  return seconds > 0 ? `Retry in ${seconds} s.` : "Retry now.";
};
