/** The dashboard's session routes' contracts: sign in, who is signed in, sign out. */
import * as z from "zod";
import { CSRF_HEADER, SESSION_COOKIE } from "../../domain/sessions.ts";
import { type SessionAnswer, SIGN_IN_MAX_BYTES, signInBody } from "../handlers/session.ts";
import { INTERNAL, JSON_MEDIA_TYPE, NOT_JSON, type RouteContract, tiedTo } from "./shared.ts";

const sessionAnswerSchema = tiedTo<SessionAnswer>()(
  z
    .strictObject({
      user: z.strictObject({
        email: z.string().meta({ example: "owner@localhost" }),
        admin: z.boolean().meta({ description: "An admin sees every app." }),
      }),
      csrf_token: z.string().meta({
        description: `Send it back in the \`${CSRF_HEADER}\` header with every change.`,
      }),
    })
    .meta({ id: "Session", description: "The signed-in person and the session's CSRF token." }),
);

const NO_SESSION = `No \`${SESSION_COOKIE}\` cookie, or its session is over: sign in.`;

export const SESSION_CONTRACTS = {
  "sign-in": {
    summary: "Sign in to the dashboard",
    description:
      `A person's email and password for a session: the \`${SESSION_COOKIE}\` cookie ` +
      "(`HttpOnly`, `SameSite=Strict`, `Secure` over HTTPS) and a CSRF token for changes. " +
      "The body must be JSON (`Content-Type: application/json`).",
    request: {
      body: { description: "The person's credentials.", schema: signInBody.meta({ id: "SignIn" }) },
    },
    success: {
      status: 200,
      description: "Signed in; the cookie is in `Set-Cookie`.",
      content: { [JSON_MEDIA_TYPE]: sessionAnswerSchema },
    },
    errors: {
      400: `${NOT_JSON} Or it is not sent as \`application/json\`.`,
      401:
        "The email or the password is wrong (which of the two is not said), or the account had " +
        "10 failed sign-ins in 15 minutes and is refused until they are older.",
      413: `The body is over ${SIGN_IN_MAX_BYTES} bytes; it was not parsed.`,
      422: "The body is not `{email, password}`.",
      500: INTERNAL,
    },
  },
  session: {
    summary: "Who is signed in",
    description: "The person of the session cookie, and the session's CSRF token.",
    success: {
      status: 200,
      description: "The session.",
      content: { [JSON_MEDIA_TYPE]: sessionAnswerSchema },
    },
    errors: { 401: NO_SESSION, 500: INTERNAL },
  },
  "sign-out": {
    summary: "Sign out",
    description: `Ends the session and clears its cookie. Needs the \`${CSRF_HEADER}\` header.`,
    success: { status: 204, description: "Signed out." },
    errors: {
      401: `${NO_SESSION} Or the \`${CSRF_HEADER}\` header is missing or wrong.`,
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;
