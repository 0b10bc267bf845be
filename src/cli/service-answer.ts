/** What the commands that call the service's HTTP API read of its answers. */

/** An answer's body read as JSON; nothing of one that is not (a gateway's own page, say). */
export const answerOf = async (response: Response): Promise<Record<string, unknown>> => {
  const text = await response.text();
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** Why the service refused a request, in its words (`{error, detail}`), else the status's. */
export const refusalOf = (response: Response, body: Record<string, unknown>): string =>
  String(body.detail ?? body.error ?? response.statusText);
