/**
 * `attribution deletions request --service-id <id>` and `attribution deletions status
 * <request-id>`: an erasure a person asked the app's owner for (GDPR, CCPA), sent to the
 * service's `POST /v1/deletions` with a server key, as AppsFlyer's OpenGDPR and Adjust's GDPR
 * forget take one from the owner's side, and its progress from `GET /v1/deletions/{request_id}`.
 * The service's rules apply as over the API: the key names the app, and a request for an
 * install already asked for answers that request again.
 */
import type { DeletionAnswer } from "../../deletion/deletions.ts";
import { answerOf, refusalOf } from "../service-answer.ts";
import { serviceUrl } from "../service-url.ts";
import { unreachable } from "../unreachable.ts";

interface ServiceOptions {
  /** The service's base URL, and the server key the call goes with. */
  readonly url: string;
  readonly key: string;
  readonly json?: boolean;
}

/** The route's answer, or the service's refusal in its own words. */
const call = async (
  options: ServiceOptions,
  route: string,
  init: { method: "GET" | "POST"; body?: unknown },
): Promise<DeletionAnswer> => {
  const url = serviceUrl(options.url, route).href;
  const response = await fetch(url, {
    method: init.method,
    headers: {
      authorization: options.key,
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  }).catch((error: unknown) => {
    throw unreachable(url, error);
  });
  const body = await answerOf(response);
  if (!response.ok) {
    throw new Error(`The service refused it (${response.status}): ${refusalOf(response, body)}`);
  }
  return body as unknown as DeletionAnswer;
};

const print = (answer: DeletionAnswer, options: ServiceOptions) => {
  if (options.json) {
    console.log(JSON.stringify(answer, null, 2));
    return;
  }
  console.log(`request_id:   ${answer.request_id}`);
  console.log(`service_id:   ${answer.service_id}`);
  console.log(`status:       ${answer.status}`);
  console.log(`requested_at: ${answer.requested_at}`);
  if (answer.completed_at) console.log(`completed_at: ${answer.completed_at}`);
};

/** Asks the service to delete an install's data; prints the request it made (or had made). */
export const requestDeletionCommand = async (
  options: ServiceOptions & { readonly serviceId: string },
) => {
  const answer = await call(options, "/v1/deletions", {
    method: "POST",
    body: { service_id: options.serviceId },
  });
  print(answer, options);
  if (!options.json && answer.status !== "completed") {
    // The command as it runs: the key from the environment, else named (never printed).
    const key = process.env.ATTRIBUTION_API_KEY ? "" : " --key <server key>";
    console.log(
      `The install's data goes at the next purge; \`npx attribution deletions status ${answer.request_id}${key}\` says when it is done.`,
    );
  }
};

/** Prints where a deletion request stands. */
export const deletionStatusCommand = async (
  options: ServiceOptions & { readonly requestId: string },
) => {
  print(
    await call(options, `/v1/deletions/${encodeURIComponent(options.requestId)}`, {
      method: "GET",
    }),
    options,
  );
};
