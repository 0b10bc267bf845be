/** `GET /{deeplink_id}` on the link host's API: the tap recorded, then a redirect by platform. */
import { createLinkStore } from "../src/adapters/dynamodb/links.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { createTouchStore } from "../src/adapters/dynamodb/touches.ts";
import { firehoseStreams } from "../src/aws/firehose-streams.ts";
import { geoipCountries } from "../src/aws/geoip-countries.ts";
import { lambda } from "../src/aws/lambda.ts";
import { clickFunction } from "../src/http/handlers/link-host.ts";

export const handler = await lambda(clickFunction, {
  tables: { apps: createAppStore, links: createLinkStore, touches: createTouchStore },
  streams: firehoseStreams,
  countries: geoipCountries,
});
