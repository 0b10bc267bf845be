/** The dashboard's session routes' contracts: sign in, who is signed in, sign out. */
import * as z from "zod";
import {
  MAX_CODE_FAILURES,
  PENDING_SIGN_IN_LIFETIME_MS,
  TOTP_DIGITS,
} from "../../dashboard/totp.ts";
import { CSRF_HEADER, SESSION_COOKIE } from "../../domain/sessions.ts";
import { MINUTE_MS } from "../../domain/time.ts";
import {
  type ChallengeAnswer,
  challengeAnswerBody,
  type SessionAnswer,
  SIGN_IN_MAX_BYTES,
  signInBody,
} from "../handlers/session.ts";
import { INTERNAL, JSON_MEDIA_TYPE, NOT_JSON, type RouteContract, tiedTo } from "./shared.ts";

const sessionAnswerSchema = tiedTo<SessionAnswer>()(
  z
    .strictObject({
      user: z.strictObject({
        email: z.string().meta({ example: "owner@localhost" }),
        admin: z.boolean().meta({ description: "An admin sees every app." }),
        viewer: z.boolean().meta({
          description:
            "A viewer sees reports and exports and changes nothing: its changes are refused.",
        }),
      }),
      csrf_token: z.string().meta({
        description: `Send it back in the \`${CSRF_HEADER}\` header with every change.`,
      }),
    })
    .meta({
      id: "DashboardSession",
      description: "The signed-in person and the session's CSRF token.",
    }),
);

const PENDING_MINUTES = PENDING_SIGN_IN_LIFETIME_MS / MINUTE_MS;

const challengeSchema = tiedTo<ChallengeAnswer>()(
  z
    .strictObject({
      challenge: z.enum(["totp", "totp_setup"]).meta({
        description:
          `\`totp\`: the person's authenticator app's ${TOTP_DIGITS}-digit code is asked. ` +
          "`totp_setup`: the person has no TOTP and must use one (an admin, where admins must): " +
          "`secret` and `otpauth_uri` are of a new one, to add to an authenticator app; its " +
          "first code sets it up and signs in.",
      }),
      challenge_token: z.string().meta({
        description: "Send it back with the code, in `{challenge_token, code}` to this route.",
      }),
      expires_at: z.iso.datetime().meta({
        description: `When the sign-in stops waiting for its code (${PENDING_MINUTES} minutes).`,
      }),
      secret: z
        .string()
        .optional()
        .meta({ description: "For `totp_setup`: the new TOTP's secret, in base32." }),
      otpauth_uri: z
        .string()
        .optional()
        .meta({
          description:
            "For `totp_setup`: the secret as an `otpauth://totp/…` key URI, which an " +
            "authenticator app reads from a QR code.",
          example: "otpauth://totp/Attribution%20dashboard:owner%40localhost?issuer=…&secret=…",
        }),
    })
    .meta({
      id: "SignInChallenge",
      description: "The password was right; no session until the TOTP code is.",
    }),
);

const NO_SESSION = `No \`${SESSION_COOKIE}\` cookie, or its session is over: sign in.`;

export const SESSION_CONTRACTS = {
  "sign-in": {
    summary: "Sign in to the dashboard",
    description:
      `A person's email and password for a session: the \`${SESSION_COOKIE}\` cookie ` +
      "(`HttpOnly`, `SameSite=Strict`, `Secure` over HTTPS) and a CSRF token for changes. " +
      "A person who has a TOTP, or an admin where admins must use one, gets a challenge " +
      "instead, with no cookie: the same route then takes `{challenge_token, code}`, the code " +
      `of the person's authenticator app, within ${PENDING_MINUTES} minutes, for the session. ` +
      "The body must be JSON (`Content-Type: application/json`).",
    request: {
      body: {
        description: "The person's email and password, or a challenge's token and code.",
        schema: z.union([
          signInBody.meta({ id: "SignIn" }),
          challengeAnswerBody.meta({ id: "SignInCode" }),
        ]),
      },
    },
    success: {
      status: 200,
      description:
        "Signed in (the cookie is in `Set-Cookie`), or the password was right and a TOTP code " +
        "is asked (`challenge`, no cookie).",
      content: { [JSON_MEDIA_TYPE]: z.union([sessionAnswerSchema, challengeSchema]) },
    },
    errors: {
      400: `${NOT_JSON} Or it is not sent as \`application/json\`.`,
      401:
        "The email or the password is wrong (which of the two is not said); or the code is " +
        `wrong (after ${MAX_CODE_FAILURES} wrong codes, or ${PENDING_MINUTES} minutes, the ` +
        "sign-in starts again from the password); or the account had 10 failed sign-ins or " +
        "codes in 15 minutes and is refused until they are older.",
      413: `The body is over ${SIGN_IN_MAX_BYTES} bytes; it was not parsed.`,
      422: `The body is neither \`{email, password}\` nor \`{challenge_token, code}\` with a ${TOTP_DIGITS}-digit code.`,
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
