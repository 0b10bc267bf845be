/**
 * The link host's endpoints for the copies of Apple's postbacks (the app's Info.plist names
 * the link host: NSAdvertisingAttributionReportEndpoint, AttributionCopyEndpoint).
 */
import { composition } from "../../functions/adapters.ts";
import { createPostbackReceiver, type PostbackReceiverDeps } from "../../skadnetwork/receive.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { routeOf } from "../routes.ts";

/** A postback is a few hundred bytes; Apple's largest, with its JWS, well under this. */
export const MAX_POSTBACK_BYTES = 16 * 1024;

export const createApplePostbackHandler = (deps: PostbackReceiverDeps) => {
  const receiver = createPostbackReceiver(deps);
  return httpRoute(async (event) => {
    const folder = event.pathParameters?.framework ?? "";
    const { created } = await receiver.receive(folder, readJsonBody(event, MAX_POSTBACK_BYTES));
    return jsonResponse(200, { stored: created ? "new" : "duplicate" });
  });
};

export const applePostbackFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("apple-postback"),
  ({ tables, streams }, runtime) =>
    createApplePostbackHandler({
      apps: runtime.allApps(tables.apps),
      store: tables.applePostbacks,
      lake: streams.apple_postbacks,
    }),
);
