/**
 * The dashboard's session routes: sign in (a password for a session cookie and its CSRF token,
 * or for a TOTP challenge that the person's code then answers on the same route), who is
 * signed in, and sign out. Public on the gateway (no key, no session yet): each reads its
 * own cookie. A cross-site page cannot sign someone in or out: sign-in takes JSON only (which a
 * form cannot send, and no other origin may, with no CORS), and sign-out needs the CSRF token.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import * as z from "zod";
import {
  answerChallenge,
  type Challenge,
  currentSession,
  normalEmail,
  type SessionDeps,
  type SignedIn,
  signIn,
  signOut,
} from "../../dashboard/sessions.ts";
import { createSignInGuard } from "../../dashboard/sign-in-guard.ts";
import { normalCode, TOTP_DIGITS } from "../../dashboard/totp.ts";
import { BadRequestError, UnauthorizedError } from "../../domain/errors.ts";
import { MAX_PASSWORD_LENGTH } from "../../domain/passwords.ts";
import {
  CSRF_HEADER,
  cookieValue,
  SESSION_COOKIE,
  sessionCookie,
  tokensMatch,
} from "../../domain/sessions.ts";
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import type { User } from "../../ports/users.ts";
import { checked } from "../../validation/issues.ts";
import { readJsonBody } from "../json-body.ts";
import { type HttpResponse, httpRoute, jsonResponse, lowerCaseHeaders } from "../middleware.ts";
import { routeOf } from "../routes.ts";

export const signInBody = z.strictObject({
  email: z.string().min(3).max(320).transform(normalEmail),
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
});

/** The code of a TOTP challenge, as its authenticator app shows it (a space in it is taken). */
export const challengeAnswerBody = z.strictObject({
  challenge_token: z.string().min(1).max(256),
  code: z
    .string()
    .regex(new RegExp(`^\\s*(?:\\d\\s*){${TOTP_DIGITS}}$`), {
      error: `must be the ${TOTP_DIGITS} digits the authenticator app shows`,
    })
    .transform(normalCode),
});

/** A sign-in is an email and a password, or a challenge's code: a few hundred bytes. */
export const SIGN_IN_MAX_BYTES = 4_096;

export interface SessionAnswer {
  readonly user: { readonly email: string; readonly admin: boolean; readonly viewer: boolean };
  readonly csrf_token: string;
}

/** What the page shows for a pending sign-in, and sends back with the code. */
export interface ChallengeAnswer {
  readonly challenge: "totp" | "totp_setup";
  readonly challenge_token: string;
  readonly expires_at: string;
  /** For a setup only: the new TOTP's secret (base32) and its key URI. */
  readonly secret?: string;
  readonly otpauth_uri?: string;
}

const challengeAnswer = (challenge: Challenge): ChallengeAnswer => ({
  challenge: challenge.step === "totp" ? "totp" : "totp_setup",
  challenge_token: challenge.token,
  expires_at: challenge.expiresAt.toISOString(),
  ...(challenge.setup && { secret: challenge.setup.secret, otpauth_uri: challenge.setup.uri }),
});

const sessionAnswer = (user: User, csrfToken: string): SessionAnswer => ({
  user: { email: user.email, admin: user.admin, viewer: user.viewer === true },
  csrf_token: csrfToken,
});

const noStore = (response: HttpResponse, cookie?: string): HttpResponse => ({
  ...response,
  headers: {
    ...response.headers,
    "cache-control": "no-store",
    ...(cookie !== undefined && { "set-cookie": cookie }),
  },
});

export const createSessionHandlers = (deps: SessionDeps & { readonly secure: boolean }) => {
  const headersOf = (event: APIGatewayProxyEvent) => lowerCaseHeaders(event.headers);
  const tokenOf = (event: APIGatewayProxyEvent) =>
    cookieValue(headersOf(event).cookie, SESSION_COOKIE);
  // Secure where the scheme allows: always on AWS, and behind a proxy that terminates TLS.
  const secureFor = (event: APIGatewayProxyEvent) =>
    deps.secure || headersOf(event)["x-forwarded-proto"] === "https";
  const signedIn = (event: APIGatewayProxyEvent, session: SignedIn) => {
    const maxAgeSeconds = Math.floor((session.expiresAt.getTime() - Date.now()) / 1000);
    return noStore(
      jsonResponse(200, sessionAnswer(session.user, session.csrfToken)),
      sessionCookie(session.token, { secure: secureFor(event), maxAgeSeconds }),
    );
  };
  const passwordOf = (body: z.output<typeof signInBody>) => [body.email, body.password] as const;
  const codeOf = (body: z.output<typeof challengeAnswerBody>) =>
    [body.challenge_token, body.code] as const;
  return {
    signIn: httpRoute(async (event) => {
      if (!headersOf(event)["content-type"]?.toLowerCase().startsWith("application/json")) {
        throw new BadRequestError("Sign in with a JSON body (Content-Type: application/json).");
      }
      const body = readJsonBody(event, SIGN_IN_MAX_BYTES);
      // A body naming a challenge answers it; any other is a password (and is checked as one).
      const answering =
        typeof body === "object" && body !== null && Object.hasOwn(body, "challenge_token");
      const address = event.requestContext?.identity?.sourceIp ?? "";
      const result = answering
        ? await answerChallenge(
            deps,
            ...codeOf(checked(challengeAnswerBody, body, "body")),
            new Date(),
            address,
          )
        : await signIn(deps, ...passwordOf(checked(signInBody, body, "body")), new Date(), address);
      if (result.challenge) return noStore(jsonResponse(200, challengeAnswer(result.challenge)));
      return signedIn(event, result.signedIn);
    }),
    current: httpRoute(async (event) => {
      const { user, csrfToken } = await currentSession(deps, tokenOf(event));
      return noStore(jsonResponse(200, sessionAnswer(user, csrfToken)));
    }),
    signOut: httpRoute(async (event) => {
      const token = tokenOf(event);
      const { csrfToken } = await currentSession(deps, token);
      if (!tokensMatch(headersOf(event)[CSRF_HEADER], csrfToken)) {
        throw new UnauthorizedError(`Signing out needs the session's ${CSRF_HEADER} header.`);
      }
      await signOut(deps, token);
      return noStore(
        { statusCode: 204, headers: {}, body: "" },
        sessionCookie("", { secure: secureFor(event), maxAgeSeconds: 0 }),
      );
    }),
  };
};

const sessionHandlers = /* @__PURE__ */ sharedBy(
  (adapters: Adapters<ReturnType<typeof routeOf<"sign-in">>["uses"]>, runtime: Runtime) =>
    createSessionHandlers({
      users: adapters.tables.users,
      sessions: adapters.tables.sessions,
      credentials: adapters.credentials,
      guard: createSignInGuard(),
      secure: runtime.secureCookies,
    }),
);

export const signInFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("sign-in"),
  (adapters, runtime) => sessionHandlers(adapters, runtime).signIn,
);

export const sessionFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("session"),
  (adapters, runtime) => sessionHandlers(adapters, runtime).current,
);

export const signOutFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("sign-out"),
  (adapters, runtime) => sessionHandlers(adapters, runtime).signOut,
);
