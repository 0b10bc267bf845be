/** `GET /{deeplink_id}` on the link host's API: the tap recorded, then a redirect by platform. */
import { createClickHandler } from "../src/http/handlers/link-host.ts";
import { logger } from "../src/logging/logger.ts";
import { logged } from "./logged.ts";
import { touchDeps } from "./touch-recording.ts";

export const handler = logged(
  createClickHandler({
    ...touchDeps,
    onRecordFailure: (error, click) =>
      logger.error("click not recorded", { appId: click.appId, clickId: click.clickId, error }),
  }),
);
