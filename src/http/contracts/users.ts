/** The dashboard's people routes' contracts: who may sign in, and which apps each sees. */
import * as z from "zod";
import {
  appIdParam,
  emailParam,
  newPersonBody,
  type PersonAnswer,
  ROLES,
} from "../../dashboard/people.ts";
import {
  INTERNAL,
  JSON_MEDIA_TYPE,
  NOT_JSON,
  type RouteContract,
  TOO_LARGE,
  tiedTo,
} from "./shared.ts";

const personSchema = tiedTo<PersonAnswer>()(
  z
    .strictObject({
      email: z.string().meta({ example: "ana@example.com" }),
      role: z.enum(ROLES).meta({
        description:
          "`admin`: every app, and the people. `member`: the apps granted. `viewer`: sees the " +
          "apps granted, changes nothing.",
      }),
      app_ids: z.array(z.string()).readonly().meta({
        description: "The apps granted (an admin sees every app whatever is listed).",
      }),
      created_at: z.iso.datetime(),
      totp: z.boolean().meta({
        description:
          "Whether the person has set up a TOTP, where the service keeps it (the embedded " +
          "runtime); on AWS Cognito keeps it, and this is false.",
      }),
    })
    .meta({ id: "Person", description: "A person who may sign in to the dashboard." }),
);

const noStoreHeaders = z.object({
  "Cache-Control": z
    .literal("no-store")
    .meta({ description: "The password is shown this once: no cache keeps it." }),
});

const emailParams = z.object({
  email: emailParam.meta({
    description: "The person's email (any case), percent-encoded.",
    example: "ana@example.com",
  }),
});
const grantParams = emailParams.extend({
  app_id: appIdParam.meta({ description: "The app's id.", example: "com.example.game" }),
});

/** Who is refused: the gateway cannot tell the reasons apart, so the answer names each. */
const UNAUTHORIZED =
  "No dashboard session (sign in), the session is over, a change lacks its `X-CSRF-Token` " +
  "header, or the person signed in is not an admin (a member's or a viewer's session is refused).";
const NO_PERSON = "No person has this email.";
const json = (schema: z.ZodType) => ({ [JSON_MEDIA_TYPE]: schema });
const PASSWORD = z.string().meta({
  description: "Made by the service, shown this once: hand it to the person.",
});

/** What a grant or a revoke answers: the person as they are now. */
const PERSON_NOW = {
  status: 200,
  description: "The person as they are now.",
  content: json(z.strictObject({ user: personSchema })),
} as const;

export const USER_CONTRACTS = {
  "list-users": {
    summary: "List the people",
    description:
      "Everyone who may sign in to the dashboard, by email, with their role and apps; never a " +
      "password or a TOTP secret. For an admin's session only.",
    success: {
      status: 200,
      description: "The people.",
      content: json(z.strictObject({ users: z.array(personSchema) })),
    },
    errors: { 401: UNAUTHORIZED, 500: INTERNAL },
  },
  "create-user": {
    summary: "Add a person",
    description:
      "A new person, with a password the service makes and answers this once; they may sign " +
      "in at once (an admin sets up a TOTP at their first sign-in where admins must).",
    request: {
      body: { description: "The new person.", schema: newPersonBody.meta({ id: "NewPerson" }) },
    },
    success: {
      status: 201,
      description: "The person, and their password.",
      content: json(z.strictObject({ user: personSchema, password: PASSWORD })),
      headers: noStoreHeaders,
    },
    errors: {
      400: NOT_JSON,
      401: UNAUTHORIZED,
      409: "A person has this email.",
      413: TOO_LARGE,
      422:
        "The email is not an email address, the role is not admin, member or viewer, an app " +
        "named does not exist, or apps are named for an admin; the detail names the field.",
      500: INTERNAL,
    },
  },
  "reset-user-password": {
    summary: "Reset a person's password",
    description:
      "A new password the service makes, answered this once; the person's sessions and " +
      "sign-ins under way end. Not the admin asking's own: it would end the session it is " +
      "answered to.",
    request: { params: emailParams },
    success: {
      status: 200,
      description: "The new password.",
      content: json(z.strictObject({ password: PASSWORD })),
      headers: noStoreHeaders,
    },
    errors: {
      401: UNAUTHORIZED,
      404: NO_PERSON,
      409: "The person is the admin asking.",
      422: "`email` is malformed.",
      500: INTERNAL,
    },
  },
  "remove-user": {
    summary: "Remove a person",
    description:
      "The person may sign in no more, and their sessions end. An admin cannot remove " +
      "themselves, nor the last admin.",
    request: { params: emailParams },
    success: { status: 204, description: "Removed." },
    errors: {
      401: UNAUTHORIZED,
      404: NO_PERSON,
      409:
        "The person is the admin asking, or the last admin; or one of the two is removing " +
        "another at this moment (try again).",
      422: "`email` is malformed.",
      500: INTERNAL,
    },
  },
  "grant-user-app": {
    summary: "Let a person see an app",
    description: "Adds the app to the person's apps (once). An admin sees every app already.",
    request: { params: grantParams },
    success: PERSON_NOW,
    errors: {
      401: UNAUTHORIZED,
      404: "No person has this email, or no app this id.",
      409: "The person is an admin, who sees every app.",
      422: "`email` or `app_id` is malformed.",
      500: INTERNAL,
    },
  },
  "revoke-user-app": {
    summary: "Stop a person seeing an app",
    description:
      "Takes the app from the person's apps (nothing changes if it was not one of them); their " +
      "next call about it is refused.",
    request: { params: grantParams },
    success: PERSON_NOW,
    errors: {
      401: UNAUTHORIZED,
      404: NO_PERSON,
      409: "The person is an admin, who sees every app; or their apps kept changing (try again).",
      422: "`email` or `app_id` is malformed.",
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;
