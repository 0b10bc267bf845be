/**
 * A person signed in to the dashboard over HTTP, as the page does it: the session cookie sent
 * back on every call, and the CSRF token on every change.
 */
import { CSRF_HEADER, SESSION_COOKIE } from "../../src/domain/sessions.ts";

export interface DashboardSession {
  readonly email: string;
  readonly cookie: string;
  readonly csrfToken: string;
  /** A call with the session (and, unless `csrf` is false, its CSRF token). */
  fetch(path: string, init?: RequestInit & { csrf?: boolean }): Promise<Response>;
  get(path: string): Promise<Response>;
  send(method: string, path: string, body?: unknown): Promise<Response>;
}

export const signIn = async (
  baseUrl: string,
  email: string,
  password: string,
): Promise<DashboardSession> => {
  const response = await fetch(`${baseUrl}/v1/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) {
    throw new Error(`Sign-in of ${email} answered ${response.status}: ${await response.text()}`);
  }
  const setCookie = response.headers.get("set-cookie") ?? "";
  const token = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(setCookie)?.[1];
  if (!token) throw new Error(`Sign-in set no session cookie: ${setCookie}`);
  const { csrf_token: csrfToken } = (await response.json()) as { csrf_token: string };
  const cookie = `${SESSION_COOKIE}=${token}`;
  const session: DashboardSession = {
    email,
    cookie,
    csrfToken,
    fetch: (path, init = {}) => {
      const { csrf = true, ...rest } = init;
      return fetch(`${baseUrl}${path}`, {
        ...rest,
        headers: {
          cookie,
          ...(csrf ? { [CSRF_HEADER]: csrfToken } : {}),
          ...(rest.body !== undefined ? { "content-type": "application/json" } : {}),
          ...((rest.headers as Record<string, string> | undefined) ?? {}),
        },
      });
    },
    get: (path) => session.fetch(path),
    send: (method, path, body) =>
      session.fetch(path, {
        method,
        ...(body !== undefined && {
          body: typeof body === "string" ? body : JSON.stringify(body),
        }),
      }),
  };
  return session;
};
